package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Limits chosen per call by a plan: {@code @RateLimited(value = "#tenant.plan")} counts
 * each call under its plan's named limit, through the plan resolver, and a plan changed
 * at run time with {@code define} keeps the counters of its unchanged windows.
 */
class RateLimitedPlansTests {

	private final ApplicationContextRunner runner = RateLimitedApplications.runner("plans-" + UUID.randomUUID())
		.withPropertyValues("redkit.rate-limit.limits.free.windows[0].limit=2",
				"redkit.rate-limit.limits.free.windows[0].period=1h",
				"redkit.rate-limit.limits.gold.windows[0].limit=5",
				"redkit.rate-limit.limits.gold.windows[0].period=1h")
		.withUserConfiguration(Services.class);

	@Test
	void eachCallIsCountedUnderItsPlansLimit() {
		this.runner.run((context) -> {
			ReportService reports = context.getBean(ReportService.class);
			Tenant free = new Tenant("t-free", "free");
			Tenant gold = new Tenant("t-gold", "gold");
			assertThat(calls(reports, free)).isEqualTo(2);
			assertThat(calls(reports, gold)).isEqualTo(5);
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> reports.export(free))
				.satisfies((ex) -> assertThat(ex.getLimitName()).as("named after the plan's limit").isEqualTo("free"));
		});
	}

	@Test
	void aPlanUpgradedMidWindowKeepsWhatWasCounted() {
		this.runner.run((context) -> {
			ReportService reports = context.getBean(ReportService.class);
			RateLimiter limiter = context.getBean(RateLimiter.class);
			Tenant tenant = new Tenant("t-upgraded", "free");
			assertThat(calls(reports, tenant)).isEqualTo(2);
			limiter.define("free", RateLimitPolicy.slidingWindow(RateLimitWindow.of(5, Duration.ofHours(1))));
			assertThat(calls(reports, tenant)).as("the 2 calls already made still count against 5").isEqualTo(3);
			limiter.define("free", RateLimitPolicy.slidingWindow(RateLimitWindow.of(5, Duration.ofMinutes(30))));
			assertThat(calls(reports, tenant)).as("a window of another period starts afresh").isEqualTo(5);
		});
	}

	@Test
	void aPlanResolverBeanMapsPlansToLimitsAndAnUnknownPlanIsAClearError() {
		this.runner.withBean(RateLimitPlanResolver.class, RateLimitedPlansTests::plans).run((context) -> {
			ReportService reports = context.getBean(ReportService.class);
			assertThat(calls(reports, new Tenant("t-enterprise", "enterprise"))).isEqualTo(5);
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> reports.export(new Tenant("t-platinum", "platinum")))
				.withMessageContaining("No rate limit named 'platinum'");
		});
	}

	@Test
	void anInvalidPlanExpressionFailsTheStartUpNamingTheMethod() {
		this.runner.withUserConfiguration(BrokenConfiguration.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("BrokenService.call()")
				.hasMessageContaining("value"));
	}

	// tag::resolver[]
	static RateLimitPlanResolver plans() {
		// enterprise shares the gold limit; other plans are limits of their own name
		return (plan) -> plan.equals("enterprise") ? "gold" : plan;
	}
	// end::resolver[]

	private static int calls(ReportService reports, Tenant tenant) {
		int allowed = 0;
		while (allowed < 20) {
			try {
				reports.export(tenant);
				allowed++;
			}
			catch (RateLimitExceededException ex) {
				return allowed;
			}
		}
		return allowed;
	}

	record Tenant(String id, String plan) {
	}

	static class Services {

		@Bean
		ReportService reportService() {
			return new ReportService();
		}

	}

	static class BrokenConfiguration {

		@Bean
		BrokenService brokenService() {
			return new BrokenService();
		}

	}

	static class ReportService {

		private final AtomicInteger exports = new AtomicInteger();

		// tag::plan[]
		@RateLimited(value = "#tenant.plan", key = "#tenant.id")
		void export(Tenant tenant) {
			// end::plan[]
			this.exports.incrementAndGet();
		}

	}

	static class BrokenService {

		@RateLimited("#plan.(")
		void call() {
		}

	}

}
