package io.github.redkit.concurrency;

import java.time.Duration;
import java.util.Optional;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.concurrency.ConcurrencyLimitAutoConfiguration;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What the concurrency limiter does when its Redis is stopped or frozen: the failure
 * mode, within the timeout, counted, then at once for the failure cooldown; and limiting
 * resumes when Redis is back.
 */
class ConcurrencyLimitFailureModeTests {

	@PrivateRedis
	private static RedisServer redis;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				ConcurrencyLimitAutoConfiguration.class))
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
		.withPropertyValues("redkit.concurrency-limit.timeout=200ms", "redkit.concurrency-limit.limits.jobs.limit=1",
				"spring.data.redis.timeout=5s");

	@Test
	void allowModeRunsCallsWithoutAPermitAndResumesLimitingWhenRedisIsBack() {
		this.runner.withPropertyValues(redis.springProperties()).run((context) -> {
			ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiter.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			limiter.tryAcquire("jobs", "warm").orElseThrow().close();
			double failedBefore = registry
				.counter("redkit.concurrency.permits", "limit", "jobs", "outcome", "failed-open")
				.count();
			redis.stop();
			try {
				for (int i = 0; i < 3; i++) {
					long start = System.nanoTime();
					ConcurrencyPermit permit = limiter.tryAcquire("jobs", "outage").orElseThrow();
					assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
					assertThat(permit.acquired()).isFalse();
					assertThat(permit.inFlight()).isEqualTo(-1);
					permit.close();
				}
				assertThat(registry.counter("redkit.concurrency.permits", "limit", "jobs", "outcome", "failed-open")
					.count()).isEqualTo(failedBefore + 3);
			}
			finally {
				redis.start();
			}
			await().atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(100))
				.until(() -> limiter.tryAcquire("jobs", "resumed").filter(ConcurrencyPermit::acquired).isPresent());
			assertThat(limiter.tryAcquire("jobs", "resumed")).as("limiting resumed").isEmpty();
		});
	}

	@Test
	void afterAFailureCallsFailFastForTheFailureCooldownThenRedisIsAskedAgain() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.concurrency-limit.failure-mode=deny", "redkit.concurrency-limit.timeout=1s",
					"redkit.concurrency-limit.failure-cooldown=3s")
			.run((context) -> {
				ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiter.class);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				warm(limiter);
				double failedBefore = registry
					.counter("redkit.concurrency.permits", "limit", "jobs", "outcome", "failed-closed")
					.count();
				redis.pause();
				try {
					assertThatExceptionOfType(ConcurrencyLimiterUnavailableException.class)
						.isThrownBy(() -> limiter.tryAcquire("jobs", "frozen"));
					long start = System.nanoTime();
					assertThatExceptionOfType(ConcurrencyLimiterUnavailableException.class)
						.isThrownBy(() -> limiter.tryAcquire("jobs", "frozen"))
						.satisfies((ex) -> assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(3)));
					assertThat(limiter.tryAcquireAsync("jobs", "frozen")).failsWithin(Duration.ofSeconds(5))
						.withThrowableThat()
						.withCauseInstanceOf(ConcurrencyLimiterUnavailableException.class);
					assertThat(Duration.ofNanos(System.nanoTime() - start)).as("Redis is not asked while cooling down")
						.isLessThan(Duration.ofMillis(500));
					assertThat(
							registry.counter("redkit.concurrency.permits", "limit", "jobs", "outcome", "failed-closed")
								.count())
						.isEqualTo(failedBefore + 3);
					// once the cooldown is over, Redis is asked again: the refusal then
					// carries Redis' failure, which a refusal while cooling down does not
					await().atMost(Duration.ofSeconds(15))
						.pollInterval(Duration.ofMillis(100))
						.until(() -> catchThrowableOfType(ConcurrencyLimiterUnavailableException.class,
								() -> limiter.tryAcquire("jobs", "frozen"))
							.getCause() != null);
				}
				finally {
					redis.resume();
				}
			});
	}

	@Test
	void inAllowModeCallsRunWithoutAPermitAndWithoutWaitingForTheFailureCooldown() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.concurrency-limit.timeout=1s", "redkit.concurrency-limit.failure-cooldown=3s")
			.run((context) -> {
				ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiter.class);
				warm(limiter);
				redis.pause();
				try {
					assertThat(limiter.tryAcquire("jobs", "frozen").orElseThrow().acquired()).isFalse();
					long start = System.nanoTime();
					assertThat(limiter.tryAcquire("jobs", "frozen").orElseThrow().acquired()).isFalse();
					assertThat(limiter.tryAcquireAsync("jobs", "frozen")).succeedsWithin(Duration.ofSeconds(5))
						.satisfies((permit) -> assertThat(permit.orElseThrow().acquired()).isFalse());
					assertThat(Duration.ofNanos(System.nanoTime() - start)).as("Redis is not asked while cooling down")
						.isLessThan(Duration.ofMillis(500));
				}
				finally {
					redis.resume();
				}
			});
	}

	/**
	 * Takes and gives back a permit from Redis: connected, scripts loaded, no cooldown.
	 */
	private static void warm(ConcurrencyLimiter limiter) {
		await().atMost(Duration.ofSeconds(15)).ignoreExceptions().until(() -> {
			ConcurrencyPermit permit = limiter.tryAcquire("jobs", "warm").orElseThrow();
			permit.close();
			return permit.acquired();
		});
	}

	@Test
	void denyModeRefusesWithinTheTimeoutAndALatePermitIsGivenBack() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.concurrency-limit.failure-mode=deny",
					"redkit.concurrency-limit.failure-cooldown=0s")
			.run((context) -> {
				ConcurrencyLimiter limiter = context.getBean(ConcurrencyLimiter.class);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				// a loaded machine's first calls can outlast the 200 ms timeout: the
				// warm-up retries, and the count is read from after it
				warm(limiter);
				Counter failedClosed = registry.counter("redkit.concurrency.permits", "limit", "jobs", "outcome",
						"failed-closed");
				double failedBefore = failedClosed.count();
				redis.pause();
				try {
					long start = System.nanoTime();
					assertThatExceptionOfType(ConcurrencyLimiterUnavailableException.class)
						.isThrownBy(() -> limiter.tryAcquire("jobs", "frozen"))
						.satisfies((ex) -> assertThat(ex.getLimitName()).isEqualTo("jobs"));
					assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
					assertThat(failedClosed.count() - failedBefore).isEqualTo(1);
				}
				finally {
					redis.resume();
				}
				// the acquire Redis ran when it woke up took the only place; the release
				// queued behind it gives it back
				await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
					Optional<ConcurrencyPermit> permit = limiter.tryAcquire("jobs", "frozen");
					permit.ifPresent(ConcurrencyPermit::close);
					return permit.isPresent();
				});
			});
	}

}
