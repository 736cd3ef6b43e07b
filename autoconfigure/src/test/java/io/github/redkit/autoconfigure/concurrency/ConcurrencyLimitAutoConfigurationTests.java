package io.github.redkit.autoconfigure.concurrency;

import java.time.Duration;
import java.util.Optional;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.concurrency.ConcurrencyPermit;
import io.github.redkit.concurrency.ConcurrencyPolicy;
import io.github.redkit.concurrency.internal.ConcurrencyLimitedAdvisor;
import io.github.redkit.concurrency.web.ConcurrencyLimitExceptionHandler;
import io.github.redkit.testsupport.RedisServers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class ConcurrencyLimitAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				ConcurrencyLimitAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties());

	@Test
	void providesTheLimiterTheAdvisorAndNamedLimits() {
		this.runner.withPropertyValues("redkit.concurrency-limit.limits.exports.limit=4",
				"redkit.concurrency-limit.limits.exports.lease=10s", "redkit.concurrency-limit.limits.imports.limit=2")
			.run((context) -> {
				assertThat(context).hasSingleBean(ConcurrencyLimiter.class)
					.hasSingleBean(ConcurrencyLimitedAdvisor.class)
					.doesNotHaveBean(ConcurrencyLimitExceptionHandler.class);
				ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiter.class);
				assertThat(limiter.policy("exports")).hasValue(new ConcurrencyPolicy(4, Duration.ofSeconds(10)));
				assertThat(limiter.policy("imports")).hasValue(new ConcurrencyPolicy(2, Duration.ofSeconds(30)));
				assertThat(context.getBean(ConcurrencyLimitedAdvisor.class).getOrder())
					.isEqualTo(ConcurrencyLimitedAdvisor.DEFAULT_ORDER);
			});
	}

	@Test
	void theAdvisorOrderCanBeChanged() {
		this.runner.withPropertyValues("redkit.concurrency-limit.order=42")
			.run((context) -> assertThat(context.getBean(ConcurrencyLimitedAdvisor.class).getOrder()).isEqualTo(42));
	}

	@Test
	void answersHttpInAServletApplication() {
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
					ConcurrencyLimitAutoConfiguration.class))
			.withPropertyValues(RedisServers.standalone().springProperties())
			.run((context) -> assertThat(context).hasSingleBean(ConcurrencyLimitExceptionHandler.class));
	}

	@Test
	void canBeTurnedOff() {
		this.runner.withPropertyValues("redkit.concurrency-limit.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(ConcurrencyLimiter.class)
				.doesNotHaveBean(ConcurrencyLimitedAdvisor.class));
	}

	@Test
	void backsOffWithoutRedis() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(RedkitAutoConfiguration.class, ConcurrencyLimitAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(ConcurrencyLimiter.class));
	}

	@Test
	void theLimiterCanBeReplaced() {
		this.runner.withUserConfiguration(CustomLimiter.class)
			.run((context) -> assertThat(context.getBean(ConcurrencyLimiter.class)).isSameAs(CustomLimiter.INSTANCE));
	}

	@Test
	void recordsPermitsWhenAMeterRegistryExists() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("redkit.concurrency-limit.limits.m.limit=1", "redkit.concurrency-limit.timeout=5s")
			.run((context) -> {
				ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiter.class);
				String key = "metrics-" + System.nanoTime();
				ConcurrencyPermit permit = limiter.tryAcquire("m", key).orElseThrow();
				assertThat(limiter.tryAcquire("m", key)).isEmpty();
				permit.close();
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.counter("redkit.concurrency.permits", "limit", "m", "outcome", "acquired").count())
					.isEqualTo(1);
				assertThat(registry.counter("redkit.concurrency.permits", "limit", "m", "outcome", "refused").count())
					.isEqualTo(1);
				assertThat(registry.timer("redkit.concurrency.held", "limit", "m").count()).isEqualTo(1);
			});
	}

	@Test
	void aZeroLimitFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.concurrency-limit.limits.exports.limit=0")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redkit.concurrency-limit.limits.exports.limit must be > 0"));
	}

	@Test
	void aZeroLeaseFailsStartUpNamingTheProperty() {
		this.runner
			.withPropertyValues("redkit.concurrency-limit.limits.exports.limit=2",
					"redkit.concurrency-limit.limits.exports.lease=0s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redkit.concurrency-limit.limits.exports.lease must be > 0"));
	}

	@Test
	void aZeroTimeoutFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.concurrency-limit.timeout=0ms")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redkit.concurrency-limit.timeout must be > 0"));
	}

	@Test
	void aNegativeFailureCooldownFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.concurrency-limit.failure-cooldown=-1s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("redkit.concurrency-limit.failure-cooldown"));
	}

	@Test
	void anUnknownFailureModeFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.concurrency-limit.failure-mode=maybe")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("redkit.concurrency-limit.failure-mode"));
	}

	@Configuration(proxyBeanMethods = false)
	static class CustomLimiter {

		static final ConcurrencyLimiter INSTANCE = new ConcurrencyLimiter() {

			@Override
			public Optional<ConcurrencyPermit> tryAcquire(String limitName, String key) {
				return Optional.empty();
			}

			@Override
			public Optional<ConcurrencyPermit> tryAcquire(String limitName, ConcurrencyPolicy policy, String key) {
				return Optional.empty();
			}

			@Override
			public Optional<ConcurrencyPolicy> policy(String limitName) {
				return Optional.empty();
			}

		};

		@Bean
		ConcurrencyLimiter customLimiter() {
			return INSTANCE;
		}

	}

}
