package io.github.redkit.resilience4j;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.event.RateLimiterEvent;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedkitRateLimiter} on a Redis of its own that the tests freeze
 * ({@code SIGSTOP}): a caller waits at most its {@code timeoutDuration} (Redkit's timeout
 * for its first ask), and a drain counts only what Redis gave.
 */
class RedkitRateLimiterFailureTests {

	@PrivateRedis
	private static RedisServer redis;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RateLimitAutoConfiguration.class))
		.withPropertyValues("redkit.rate-limit.limits.paced.windows[0].limit=1",
				"redkit.rate-limit.limits.paced.windows[0].period=400ms",
				"redkit.rate-limit.limits.drained.windows[0].limit=10",
				"redkit.rate-limit.limits.drained.windows[0].period=1h", "spring.data.redis.timeout=5s")
		// a key prefix per test: a test that fails leaves no place taken for the next
		.withPropertyValues("redkit.key-prefix=r4j-rate-" + UUID.randomUUID());

	@Test
	void aCallerWaitingForAPermitWhileRedisFreezesIsRefusedWhenItsTimeoutEndsNotAtRedkitsTimeout() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.rate-limit.timeout=3s", "redkit.rate-limit.failure-cooldown=0")
			.run((context) -> {
				io.github.redkit.ratelimit.RateLimiter redkit = context
					.getBean(io.github.redkit.ratelimit.RateLimiter.class);
				// connected and the script loaded: a slow first call on a busy machine
				// is not taken for a Redis that does not answer
				await().atMost(Duration.ofSeconds(30))
					.until(() -> redkit.tryAcquire("drained", "warm-up-" + System.nanoTime()).remaining() >= 0);
				RateLimiter limiter = new RedkitRateLimiter("paced",
						RateLimiterConfig.custom().timeoutDuration(Duration.ofSeconds(1)).build(), Map.of(),
						new FreezingAfterARefusal(redkit), "paced", "paced", (l, p, k) -> 0);
				assertThat(limiter.acquirePermission()).isTrue();
				long start = System.nanoTime();
				boolean permitted;
				try {
					// refused, told to come back within the 1 s timeout: asks again, and
					// Redis is frozen by then
					permitted = limiter.acquirePermission();
				}
				finally {
					redis.resume();
				}
				Duration waited = Duration.ofNanos(System.nanoTime() - start);
				assertThat(permitted).as("refused: no permit within the timeout").isFalse();
				assertThat(waited).as("the 1 s timeout, not Redkit's 3 s").isLessThan(Duration.ofMillis(2500));
			});
	}

	@Test
	void aDrainWhileRedisCannotBeAskedTakesNothingAndSaysSoUnderTheLocalFailureMode() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.rate-limit.timeout=200ms", "redkit.rate-limit.failure-mode=local",
					"redkit.rate-limit.local.expected-instances=1")
			.run((context) -> {
				io.github.redkit.ratelimit.RateLimiter redkit = context
					.getBean(io.github.redkit.ratelimit.RateLimiter.class);
				// connected in the background: until then decisions are local
				await().atMost(Duration.ofSeconds(10))
					.until(() -> !redkit.tryAcquire("paced", "warm-up-" + System.nanoTime()).local());
				RateLimiter limiter = new RedkitRateLimiter("drained", RateLimiterConfig.ofDefaults(), Map.of(), redkit,
						"drained", "drained", (l, p, k) -> 0);
				List<RateLimiterEvent> events = new CopyOnWriteArrayList<>();
				limiter.getEventPublisher().onEvent(events::add);
				// alone, this instance's local share is the whole limit: a local decision
				// would give all 10
				redis.pause();
				try {
					limiter.drainPermissions();
				}
				finally {
					redis.resume();
				}
				assertThat(events).singleElement()
					.satisfies((event) -> assertThat(event.getEventType()).isEqualTo(RateLimiterEvent.Type.DRAINED))
					.satisfies((event) -> assertThat(event.getNumberOfPermits()).as("drained from Redis").isZero());
			});
	}

	/**
	 * Redkit's rate limiter, with Redis frozen right after the first refusal it decides
	 * (blocking); its asynchronous face goes straight to Redis.
	 */
	private record FreezingAfterARefusal(
			io.github.redkit.ratelimit.RateLimiter delegate) implements io.github.redkit.ratelimit.RateLimiter {

		@Override
		public RateLimitDecision tryAcquire(String limitName, List<String> keys, int cost) {
			return frozenIfRefused(this.delegate.tryAcquire(limitName, keys, cost));
		}

		@Override
		public RateLimitDecision tryAcquire(String limitName, RateLimitPolicy policy, List<String> keys, int cost) {
			return frozenIfRefused(this.delegate.tryAcquire(limitName, policy, keys, cost));
		}

		@Override
		public CompletableFuture<RateLimitDecision> tryAcquireAsync(String limitName, List<String> keys, int cost) {
			return this.delegate.tryAcquireAsync(limitName, keys, cost);
		}

		@Override
		public void define(String limitName, RateLimitPolicy policy) {
			this.delegate.define(limitName, policy);
		}

		@Override
		public Optional<RateLimitPolicy> policy(String limitName) {
			return this.delegate.policy(limitName);
		}

		private static RateLimitDecision frozenIfRefused(RateLimitDecision decision) {
			if (!decision.allowed()) {
				redis.pause();
			}
			return decision;
		}

	}

}
