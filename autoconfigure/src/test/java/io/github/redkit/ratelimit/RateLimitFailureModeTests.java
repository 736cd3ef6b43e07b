package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.UUID;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What the rate limiter does when its Redis is stopped or frozen, and that it resumes
 * when Redis is back, without a restart.
 */
class RateLimitFailureModeTests {

	@PrivateRedis
	private static RedisServer redis;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RateLimitAutoConfiguration.class))
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
		.withPropertyValues("redkit.rate-limit.timeout=200ms", "redkit.rate-limit.failure-cooldown=300ms",
				"redkit.rate-limit.limits.api.windows[0].limit=2", "redkit.rate-limit.limits.api.windows[0].period=1h",
				"spring.data.redis.timeout=5s");

	@Test
	void allowModeLetsCallsThroughWithinTheTimeoutAndResumesLimitingWhenRedisIsBack() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			warmUp(limiter);
			assertThat(limiter.tryAcquire("api", "outage-allow").allowed()).isTrue();
			double failedOpen = registry.counter("redkit.ratelimit.decisions", "limit", "api", "outcome", "failed-open")
				.count();
			redis.stop();
			try {
				for (int i = 0; i < 5; i++) {
					long start = System.nanoTime();
					RateLimitDecision decision = limiter.tryAcquire("api", "outage-allow");
					assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
					assertThat(decision.allowed()).isTrue();
					assertThat(decision.remaining()).isEqualTo(-1);
				}
				assertThat(registry.counter("redkit.ratelimit.decisions", "limit", "api", "outcome", "failed-open")
					.count()).isEqualTo(failedOpen + 5);
			}
			finally {
				redis.start();
			}
			await().atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(100))
				.untilAsserted(
						() -> assertThat(limiter.tryAcquire("api", "resumed").remaining()).isGreaterThanOrEqualTo(0));
			assertThat(limiter.tryAcquire("api", "resumed").allowed()).isTrue();
			assertThat(limiter.tryAcquire("api", "resumed").allowed()).as("limiting resumed").isFalse();
		});
	}

	@Test
	void denyModeRefusesWithinTheTimeoutWhenRedisHangs() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.rate-limit.failure-mode=deny")
			.run((context) -> {
				RateLimiter limiter = context.getBean(RateLimiter.class);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				warmUp(limiter);
				assertThat(limiter.tryAcquire("api", "outage-deny").allowed()).isTrue();
				double failedClosed = registry
					.counter("redkit.ratelimit.decisions", "limit", "api", "outcome", "failed-closed")
					.count();
				redis.pause();
				try {
					long start = System.nanoTime();
					assertThatExceptionOfType(RateLimiterUnavailableException.class)
						.isThrownBy(() -> limiter.tryAcquire("api", "outage-deny"))
						.satisfies((ex) -> assertThat(ex.getLimitName()).isEqualTo("api"));
					assertThatExceptionOfType(RateLimiterUnavailableException.class)
						.isThrownBy(() -> limiter.tryAcquire("api", "outage-deny"));
					assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
					assertThat(
							registry.counter("redkit.ratelimit.decisions", "limit", "api", "outcome", "failed-closed")
								.count())
						.isEqualTo(failedClosed + 2);
				}
				finally {
					redis.resume();
				}
				// the call that timed out still reached Redis and was counted when Redis
				// woke up:
				// a late answer can cost a permit, never grant an extra one
				await().atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(100))
					.ignoreExceptions()
					.untilAsserted(() -> assertThat(limiter.tryAcquire("api", "after-pause").allowed()).isTrue());
				assertThat(limiter.tryAcquire("api", "outage-deny").allowed()).isFalse();
			});
	}

	/**
	 * Waits until Redis decides a call: the connection is made in the background, and the
	 * first call of a context on a loaded machine may take longer than the 200 ms timeout
	 * (then it is decided by the failure mode, which the tests count).
	 */
	private static void warmUp(RateLimiter limiter) {
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.ignoreExceptions()
			.until(() -> limiter.tryAcquire("api", "warm-up-" + UUID.randomUUID()).remaining() >= 0);
	}

}
