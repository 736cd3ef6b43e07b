package io.github.redkit.autoconfigure.ratelimit;

import java.time.Duration;
import java.util.UUID;

import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.concurrency.ConcurrencyLimitAutoConfiguration;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.actuate.LocalRateLimitHealthIndicator;
import io.github.redkit.ratelimit.internal.LocalRateLimiter;
import io.github.redkit.ratelimit.internal.RateLimitInstances;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The wiring of {@code redkit.rate-limit.failure-mode=local}: its beans only in that
 * mode, the instance count configured or learnt from the instances' heartbeats in Redis,
 * and values that cannot work failing start-up with a message naming their property.
 */
class RateLimitLocalFailureModeAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RateLimitAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties());

	@Test
	void theOtherModesHaveNoLocalLimiter() {
		this.runner.withPropertyValues("redkit.rate-limit.failure-mode=deny")
			.run((context) -> assertThat(context).hasSingleBean(RateLimiter.class)
				.doesNotHaveBean(LocalRateLimiter.class)
				.doesNotHaveBean(RateLimitInstances.class)
				.doesNotHaveBean(LocalRateLimitHealthIndicator.class));
	}

	@Test
	void theLocalModeHasItsLimiterAHealthIndicatorAndAConfiguredInstanceCount() {
		this.runner
			.withPropertyValues("redkit.rate-limit.failure-mode=LOCAL", "redkit.rate-limit.local.expected-instances=3")
			.run((context) -> {
				assertThat(context).hasSingleBean(LocalRateLimiter.class)
					.hasSingleBean(LocalRateLimitHealthIndicator.class);
				RateLimitInstances instances = context.getBean(RateLimitInstances.class);
				assertThat(instances.count()).isEqualTo(3);
				assertThat(instances.source()).isEqualTo("configured");
				assertThat(context.getBean(LocalRateLimitHealthIndicator.class).health(true).getDetails())
					.containsEntry("degraded", false)
					.containsEntry("instances", 3);
			});
	}

	@Test
	void withoutAConfiguredCountEachInstanceLearnsHowManyHeartbeatInRedis() {
		String[] shared = { "redkit.rate-limit.failure-mode=local", "redkit.rate-limit.local.heartbeat=100ms",
				"redkit.key-prefix=instances-" + UUID.randomUUID() };
		this.runner.withPropertyValues(shared).run((first) -> {
			RateLimitInstances firstInstances = first.getBean(RateLimitInstances.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> firstInstances.source().equals("learnt"));
			assertThat(firstInstances.count()).isEqualTo(1);
			this.runner.withPropertyValues(shared).run((second) -> {
				RateLimitInstances secondInstances = second.getBean(RateLimitInstances.class);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> firstInstances.count() == 2 && secondInstances.count() == 2);
			});
			// the second stopped: it is no longer counted once it missed three heartbeats
			await().atMost(Duration.ofSeconds(10)).until(() -> firstInstances.count() == 1);
		});
	}

	@Test
	void beforeAnyHeartbeatIsHeardTheCountIsOne() {
		this.runner.withPropertyValues("spring.data.redis.port=1", "redkit.rate-limit.failure-mode=local")
			.run((context) -> {
				RateLimitInstances instances = context.getBean(RateLimitInstances.class);
				assertThat(instances.count()).isOne();
				assertThat(instances.source()).isEqualTo("default");
			});
	}

	@Test
	void aMalformedExpectedInstancesFailsStartUpNamingTheProperty() {
		this.runner
			.withPropertyValues("redkit.rate-limit.failure-mode=local",
					"redkit.rate-limit.local.expected-instances=many")
			.run((context) -> assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("many"));
		this.runner
			.withPropertyValues("redkit.rate-limit.failure-mode=local",
					"redkit.rate-limit.local.expected-instances=many")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.rate-limit.local.expected-instances"));
		this.runner
			.withPropertyValues("redkit.rate-limit.failure-mode=local", "redkit.rate-limit.local.expected-instances=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.rate-limit.local.expected-instances must be at least 1"));
	}

	@Test
	void aMaxKeysOrHeartbeatThatCannotWorkFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.rate-limit.failure-mode=local", "redkit.rate-limit.local.max-keys=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.rate-limit.local.max-keys must be at least 1"));
		this.runner.withPropertyValues("redkit.rate-limit.failure-mode=local", "redkit.rate-limit.local.heartbeat=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.rate-limit.local.heartbeat"));
	}

	@Test
	void anUnknownFailureModeFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.rate-limit.failure-mode=nearby")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.rate-limit.failure-mode"));
	}

	@Test
	void theLocalModeWithoutCaffeineFailsStartUpSayingWhatIsMissing() {
		this.runner.withClassLoader(new FilteredClassLoader(Caffeine.class))
			.withPropertyValues("redkit.rate-limit.failure-mode=local", "redkit.rate-limit.local.expected-instances=2")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.rate-limit.failure-mode=local needs Caffeine"));
	}

	@Test
	void aConcurrencyLimitHasNoLocalModeAndSaysSoNamingItsProperty() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
					ConcurrencyLimitAutoConfiguration.class))
			.withPropertyValues(RedisServers.standalone().springProperties())
			.withPropertyValues("redkit.concurrency-limit.failure-mode=local")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.concurrency-limit.failure-mode")
				.hasStackTraceContaining("local"));
	}

}
