package io.github.redkit.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.region.RegionAutoConfiguration;
import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.internal.RateLimitedAdvisor;
import io.github.redkit.ratelimit.web.RateLimitExceptionHandler;
import io.github.redkit.region.internal.RegionOutbox;
import io.github.redkit.testsupport.RedisServers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

class RateLimitAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RateLimitAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties());

	@Test
	void providesTheRateLimiterTheAdvisorAndNamedLimits() {
		this.runner.withPropertyValues("redkit.rate-limit.limits.api.algorithm=token-bucket",
				"redkit.rate-limit.limits.api.windows[0].limit=10", "redkit.rate-limit.limits.api.windows[0].period=1s",
				"redkit.rate-limit.limits.api.windows[1].limit=120",
				"redkit.rate-limit.limits.api.windows[1].period=1m")
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimiter.class)
					.hasSingleBean(RateLimitedAdvisor.class)
					.doesNotHaveBean(RateLimitExceptionHandler.class);
				RateLimitPolicy api = context.getBean(RateLimiter.class).policy("api").orElseThrow();
				assertThat(api.algorithm()).isEqualTo(RateLimitAlgorithm.TOKEN_BUCKET);
				assertThat(api.windows()).hasSize(2);
			});
	}

	@Test
	void aGlobalLimitNeedsRegionsAndASlidingWindow() {
		String[] api = { "redkit.rate-limit.limits.api.windows[0].limit=10",
				"redkit.rate-limit.limits.api.windows[0].period=1s", "redkit.rate-limit.limits.api.global=true" };
		this.runner.withPropertyValues(api)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.rate-limit.limits.api.global")
				.hasMessageContaining("redkit.regions.local"));
		ApplicationContextRunner regions = this.runner
			.withConfiguration(AutoConfigurations.of(RegionAutoConfiguration.class))
			.withPropertyValues("redkit.regions.local=eu")
			.withPropertyValues(api);
		regions.withPropertyValues("redkit.rate-limit.limits.api.algorithm=fixed-window")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.rate-limit.limits.api.global")
				.hasMessageContaining("sliding-window"));
		regions.withPropertyValues("redkit.regions.replicate=counters")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.regions.replicate"));
		regions.run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			String identifier = "user:" + System.nanoTime();
			for (int i = 0; i < 10; i++) {
				assertThat(limiter.tryAcquire("api", identifier).allowed()).isTrue();
			}
			assertThat(limiter.tryAcquire("api", identifier).allowed()).isFalse();
			// counted through the region's outbox, for the peers
			String outbox = context.getBean(RegionOutbox.class).stream("api");
			assertThat(
					new StringRedisTemplate(context.getBean(RedisConnectionFactory.class)).opsForStream().size(outbox))
				.isGreaterThanOrEqualTo(10);
		});
	}

	@Test
	void canBeTurnedOff() {
		this.runner.withPropertyValues("redkit.rate-limit.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RateLimiter.class)
				.doesNotHaveBean(RateLimitedAdvisor.class));
	}

	@Test
	void backsOffWithoutRedis() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RedkitAutoConfiguration.class, RateLimitAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimiter.class));
	}

	@Test
	void recordsMetricsWhenAMeterRegistryExists() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("redkit.rate-limit.limits.m.windows[0].limit=1",
					"redkit.rate-limit.limits.m.windows[0].period=1h",
					"redkit.rate-limit.limits.warm.windows[0].limit=1000000",
					"redkit.rate-limit.limits.warm.windows[0].period=1s")
			.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiter.class);
				// a cold connection on a busy machine can take longer than the 500 ms
				// timeout
				await().atMost(Duration.ofSeconds(30)).until(() -> limiter.tryAcquire("warm", "w").decidedAt() != null);
				String key = "metrics-" + System.nanoTime();
				limiter.tryAcquire("m", key);
				limiter.tryAcquire("m", key);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.counter("redkit.ratelimit.decisions", "limit", "m", "outcome", "allowed").count())
					.isEqualTo(1);
				assertThat(registry.counter("redkit.ratelimit.decisions", "limit", "m", "outcome", "denied").count())
					.isEqualTo(1);
				assertThat(registry.timer("redkit.ratelimit.duration", "limit", "m").count()).isEqualTo(2);
			});
	}

	@Test
	void theRateLimiterCanBeReplaced() {
		this.runner.withUserConfiguration(CustomRateLimiter.class)
			.run((context) -> assertThat(context.getBean(RateLimiter.class)).isSameAs(CustomRateLimiter.INSTANCE));
	}

	@Test
	void aLimitWithoutWindowsFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.rate-limit.limits.api.algorithm=fixed-window")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redkit.rate-limit.limits.api.windows must list at least one window"));
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', quoteCharacter = '"',
			textBlock = """
					size=-1                                   | local-allowance.size must be at least 0 (was -1)
					size=11                                   | local-allowance.size must be at most the smallest window's limit, 10 (was 11)
					size=5,max-age=0s                         | local-allowance.max-age
					size=5;algorithm=token-bucket             | local-allowance needs the sliding-window or fixed-window algorithm (was token-bucket)
					size=5;algorithm=sliding-log              | local-allowance needs the sliding-window or fixed-window algorithm (was sliding-log)
					""")
	void aLocalAllowanceThatCannotWorkFailsStartUpNamingTheProperty(String settings, String message) {
		List<String> properties = new ArrayList<>(List.of("redkit.rate-limit.limits.api.windows[0].limit=10",
				"redkit.rate-limit.limits.api.windows[0].period=1s"));
		String[] parts = settings.split(";");
		for (String allowance : parts[0].split(",")) {
			properties.add("redkit.rate-limit.limits.api.local-allowance." + allowance);
		}
		for (int i = 1; i < parts.length; i++) {
			properties.add("redkit.rate-limit.limits.api." + parts[i]);
		}
		this.runner.withPropertyValues(properties.toArray(String[]::new))
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redkit.rate-limit.limits.api." + message));
	}

	@Test
	void aLocalAllowanceIsConfiguredPerLimit() {
		this.runner
			.withPropertyValues("redkit.rate-limit.limits.api.windows[0].limit=1000",
					"redkit.rate-limit.limits.api.windows[0].period=1s",
					"redkit.rate-limit.limits.api.local-allowance.size=50",
					"redkit.rate-limit.limits.api.local-allowance.max-age=50ms")
			.run((context) -> assertThat(context).hasNotFailed()
				.getBean(RateLimiter.class)
				.satisfies(
						(limiter) -> assertThat(limiter.tryAcquire("api", "k").remaining()).isEqualTo(1000 - 50 + 49)));
	}

	@Test
	void whatABatchHoldsIsGivenBackWhenTheApplicationStops() {
		String[] limit = { "redkit.rate-limit.limits.api.windows[0].limit=100",
				"redkit.rate-limit.limits.api.windows[0].period=1h", "redkit.key-prefix=rl-stop-" + System.nanoTime() };
		this.runner.withPropertyValues(limit)
			.withPropertyValues("redkit.rate-limit.limits.api.local-allowance.size=50",
					"redkit.rate-limit.limits.api.local-allowance.max-age=1h")
			.run((context) -> context.getBean(RateLimiter.class).tryAcquire("api", "k"));
		this.runner.withPropertyValues(limit)
			.run((context) -> assertThat(context.getBean(RateLimiter.class).tryAcquire("api", "k").remaining())
				.as("1 handed out, 49 given back, 1 now")
				.isEqualTo(98));
	}

	@Test
	void aZeroLimitFailsStartUpNamingTheProperty() {
		this.runner
			.withPropertyValues("redkit.rate-limit.limits.api.windows[0].limit=0",
					"redkit.rate-limit.limits.api.windows[0].period=1s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redkit.rate-limit.limits.api.windows[0].limit must be > 0"));
	}

	@Test
	void aSlidingLogAboveItsLargestLimitFailsStartUpNamingTheProperty() {
		this.runner
			.withPropertyValues("redkit.rate-limit.limits.login.algorithm=sliding-log",
					"redkit.rate-limit.limits.login.windows[0].limit=5",
					"redkit.rate-limit.limits.login.windows[0].period=1m",
					"redkit.rate-limit.limits.login.windows[1].limit=10001",
					"redkit.rate-limit.limits.login.windows[1].period=1d")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redkit.rate-limit.limits.login.windows[1].limit must be at most 10000"));
	}

	@Test
	void slidingLogAndSubWindowsAreConfiguredPerLimit() {
		this.runner
			.withPropertyValues("redkit.rate-limit.limits.login.algorithm=sliding-log",
					"redkit.rate-limit.limits.login.windows[0].limit=5",
					"redkit.rate-limit.limits.login.windows[0].period=15m",
					"redkit.rate-limit.limits.api.sub-windows=60", "redkit.rate-limit.limits.api.windows[0].limit=100",
					"redkit.rate-limit.limits.api.windows[0].period=1h")
			.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiter.class);
				assertThat(limiter.policy("login").orElseThrow().algorithm()).isEqualTo(RateLimitAlgorithm.SLIDING_LOG);
				assertThat(limiter.policy("api").orElseThrow().subWindows()).isEqualTo(60);
			});
	}

	@Test
	void subWindowsOutOfRangeFailStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.rate-limit.limits.api.sub-windows=0",
				"redkit.rate-limit.limits.api.windows[0].limit=5", "redkit.rate-limit.limits.api.windows[0].period=1s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redkit.rate-limit.limits.api.sub-windows must be 1 to 100 (was 0)"));
	}

	@Test
	void aZeroPeriodFailsStartUpNamingTheProperty() {
		this.runner
			.withPropertyValues("redkit.rate-limit.limits.api.windows[0].limit=5",
					"redkit.rate-limit.limits.api.windows[0].period=0s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redkit.rate-limit.limits.api.windows[0].period must be at least 1ms"));
	}

	@Test
	void anUnknownFailureModeFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.rate-limit.failure-mode=maybe")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("redkit.rate-limit.failure-mode"));
	}

	@Configuration(proxyBeanMethods = false)
	static class CustomRateLimiter {

		static final RateLimiter INSTANCE = new RateLimiter() {

			@Override
			public RateLimitDecision tryAcquire(String limitName, List<String> keys, int cost) {
				return null;
			}

			@Override
			public RateLimitDecision tryAcquire(String limitName, RateLimitPolicy policy, List<String> keys, int cost) {
				return null;
			}

			@Override
			public void define(String limitName, RateLimitPolicy policy) {
			}

			@Override
			public Optional<RateLimitPolicy> policy(String limitName) {
				return Optional.empty();
			}

		};

		@Bean
		RateLimiter customRateLimiter() {
			return INSTANCE;
		}

	}

}
