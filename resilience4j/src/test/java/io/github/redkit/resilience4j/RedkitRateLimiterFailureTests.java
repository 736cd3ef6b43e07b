package io.github.redkit.resilience4j;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.ratelimit.RateLimitCall;
import io.github.redkit.ratelimit.RateLimitDecider;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimiterUnavailableException;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.RequestNotPermitted;
import io.github.resilience4j.ratelimiter.event.RateLimiterEvent;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedkitRateLimiter} on a Redis of its own that the tests freeze
 * ({@code SIGSTOP}): a caller waits at most its {@code timeoutDuration} (Redkit's timeout
 * for its first ask), a drain counts only what Redis gave, a call made once the
 * application has stopped is decided by the failure mode, and one Redkit's limiter fails
 * to decide otherwise (a defect) is refused as Resilience4j refuses, as
 * {@link RedkitBulkhead}'s are.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedkitRateLimiterFailureTests {

	@PrivateRedis
	private static RedisServer redis;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RateLimitAutoConfiguration.class))
		.withPropertyValues("redkit.rate-limit.limits.paced.windows[0].limit=1",
				"redkit.rate-limit.limits.paced.windows[0].period=400ms",
				"redkit.rate-limit.limits.drained.windows[0].limit=10",
				"redkit.rate-limit.limits.drained.windows[0].period=1h",
				"redkit.rate-limit.limits.slow.windows[0].limit=1",
				"redkit.rate-limit.limits.slow.windows[0].period=2s", "spring.data.redis.timeout=5s")
		// a key prefix per test: a test that fails leaves no place taken for the next
		.withPropertyValues("redkit.key-prefix=r4j-rate-" + UUID.randomUUID());

	@Test
	void aCallerWaitingForAPermitWhileRedisFreezesIsRefusedWhenItsTimeoutEndsNotAtRedkitsTimeout() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.rate-limit.timeout=3s", "redkit.rate-limit.failure-cooldown=0")
			.run((context) -> {
				io.github.redkit.ratelimit.RateLimiter redkit = warm(context);
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

	@Test
	void aCallMadeOnceTheApplicationHasStoppedIsDecidedByTheFailureMode() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.rate-limit.failure-mode=deny", "redkit.rate-limit.failure-cooldown=0")
			.run((context) -> {
				io.github.redkit.ratelimit.RateLimiter redkit = warm(context);
				RateLimiter limiter = new RedkitRateLimiter("drained", RateLimiterConfig.ofDefaults(), Map.of(), redkit,
						"drained", "drained", (l, p, k) -> 0);
				List<RateLimiterEvent.Type> events = events(limiter);
				// closed (Redkit's script runner with it): a call still made then, by a
				// thread the shutdown did not wait for, cannot ask Redis
				context.close();
				// refused as Resilience4j refuses, so that the fallbacks (which match
				// RequestNotPermitted) answer: not an exception of Redkit's
				assertThatExceptionOfType(RequestNotPermitted.class)
					.isThrownBy(() -> RateLimiter.decorateSupplier(limiter, () -> "called").get());
				assertThat(limiter.reservePermission()).as("no permit handed out").isEqualTo(-1);
				assertThat(events).containsExactly(RateLimiterEvent.Type.FAILED_ACQUIRE,
						RateLimiterEvent.Type.FAILED_ACQUIRE);
			});
	}

	@Test
	void aCallerWaitingForAPermitWhileTheApplicationStopsIsDecidedByTheFailureMode() {
		this.runner.withPropertyValues(redis.springProperties())
			.withPropertyValues("redkit.rate-limit.failure-mode=deny", "redkit.rate-limit.failure-cooldown=0")
			.run((context) -> {
				io.github.redkit.ratelimit.RateLimiter redkit = warm(context);
				RateLimiter limiter = new RedkitRateLimiter("slow",
						RateLimiterConfig.custom().timeoutDuration(Duration.ofSeconds(10)).build(), Map.of(), redkit,
						"slow", "slow", (l, p, k) -> 0);
				List<RateLimiterEvent.Type> events = events(limiter);
				assertThat(limiter.acquirePermission()).isTrue();
				// refused, told to come back when the 2 s window gives the permit back
				CompletableFuture<Boolean> waiter = CompletableFuture
					.supplyAsync(() -> RateLimiter.decorateSupplier(limiter, () -> true).get());
				await().atMost(Duration.ofSeconds(10))
					.until(() -> limiter.getMetrics().getNumberOfWaitingThreads() == 1);
				context.close();
				// its next ask cannot reach Redis: refused, well within its 10 s timeout
				assertThat(waiter).failsWithin(Duration.ofSeconds(8))
					.withThrowableOfType(ExecutionException.class)
					.withCauseInstanceOf(RequestNotPermitted.class);
				assertThat(events).containsExactly(RateLimiterEvent.Type.SUCCESSFUL_ACQUIRE,
						RateLimiterEvent.Type.FAILED_ACQUIRE);
			});
	}

	@Test
	void anUnexpectedFailureOfTheLimiterRefusesTheCallWithAWarnNamingIt(CapturedOutput output) {
		this.runner.withPropertyValues(redis.springProperties())
			.withBean(RateLimitDecider.class, () -> new FaultyDecider("paced", false))
			.run((context) -> {
				io.github.redkit.ratelimit.RateLimiter redkit = warm(context);
				RateLimiter limiter = new RedkitRateLimiter("faulty", RateLimiterConfig.ofDefaults(), Map.of(), redkit,
						"paced", "faulty", (l, p, k) -> 0);
				List<RateLimiterEvent.Type> events = events(limiter);
				assertThatExceptionOfType(RequestNotPermitted.class)
					.isThrownBy(() -> RateLimiter.decorateSupplier(limiter, () -> "called").get());
				assertThat(limiter.reservePermission()).isEqualTo(-1);
				limiter.drainPermissions();
				assertThat(events).containsExactly(RateLimiterEvent.Type.FAILED_ACQUIRE,
						RateLimiterEvent.Type.FAILED_ACQUIRE, RateLimiterEvent.Type.DRAINED);
				assertThat(output)
					.contains("Rate limiter 'faulty': limit 'paced' could not decide, the call is refused")
					.contains("a decider's defect");
			});
	}

	@Test
	void aFloodOfUnexpectedFailuresIsWarnedOnceAWhileNotOncePerCall(CapturedOutput output) {
		this.runner.withPropertyValues(redis.springProperties())
			.withBean(RateLimitDecider.class, () -> new FaultyDecider("paced", false))
			.run((context) -> {
				io.github.redkit.ratelimit.RateLimiter redkit = warm(context);
				RateLimiter limiter = new RedkitRateLimiter("flooded", RateLimiterConfig.ofDefaults(), Map.of(), redkit,
						"paced", "flooded", (l, p, k) -> 0);
				for (int i = 0; i < 50; i++) {
					assertThatExceptionOfType(RequestNotPermitted.class)
						.isThrownBy(() -> RateLimiter.decorateSupplier(limiter, () -> "called").get());
				}
				assertThat(output.toString().lines().filter((line) -> line.contains("Rate limiter 'flooded'")))
					.as("WARN lines of 50 refused calls")
					.hasSize(1);
			});
	}

	@Test
	void anUnexpectedFailureWhileACallerWaitsForAPermitRefusesIt(CapturedOutput output) {
		this.runner.withPropertyValues(redis.springProperties())
			.withBean(RateLimitDecider.class, () -> new FaultyDecider("slow", true))
			.run((context) -> {
				io.github.redkit.ratelimit.RateLimiter redkit = warm(context);
				RateLimiter limiter = new RedkitRateLimiter("faulty",
						RateLimiterConfig.custom().timeoutDuration(Duration.ofSeconds(10)).build(), Map.of(), redkit,
						"slow", "faulty", (l, p, k) -> 0);
				List<RateLimiterEvent.Type> events = events(limiter);
				long start = System.nanoTime();
				// refused first, told to come back in 100 ms: its next ask fails
				assertThatExceptionOfType(RequestNotPermitted.class)
					.isThrownBy(() -> RateLimiter.decorateSupplier(limiter, () -> "called").get());
				assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not its 10 s timeout")
					.isLessThan(Duration.ofSeconds(5));
				assertThat(events).containsExactly(RateLimiterEvent.Type.FAILED_ACQUIRE);
				assertThat(output).contains("Rate limiter 'faulty': limit 'slow' could not decide, the call is refused")
					.contains("a decider's defect");
			});
	}

	/**
	 * Connected and the script loaded: a slow first call on a busy machine is not taken
	 * for a Redis that does not answer (under {@code deny}, such a call throws).
	 */
	private static io.github.redkit.ratelimit.RateLimiter warm(ApplicationContext context) {
		io.github.redkit.ratelimit.RateLimiter redkit = context.getBean(io.github.redkit.ratelimit.RateLimiter.class);
		await().atMost(Duration.ofSeconds(30))
			.ignoreException(RateLimiterUnavailableException.class)
			.until(() -> redkit.tryAcquire("drained", "warm-up-" + System.nanoTime()).remaining() >= 0);
		return redkit;
	}

	// the types of the events the limiter publishes from now on
	private static List<RateLimiterEvent.Type> events(RateLimiter limiter) {
		List<RateLimiterEvent.Type> events = new CopyOnWriteArrayList<>();
		limiter.getEventPublisher().onEvent((event) -> events.add(event.getEventType()));
		return events;
	}

	/**
	 * A layer above the rate limits (as regions are) that decides one limit in place of
	 * Redkit's script and fails with a defect of its own: not a Redis failure, so no
	 * failure mode applies and Redkit's limiter throws it. It throws at once, or, after a
	 * first refusal (a caller then waits 100 ms for the permit), fails the next answers.
	 */
	private static final class FaultyDecider implements RateLimitDecider {

		private final String limitName;

		private final boolean refusesFirst;

		private final AtomicBoolean refused = new AtomicBoolean();

		FaultyDecider(String limitName, boolean refusesFirst) {
			this.limitName = limitName;
			this.refusesFirst = refusesFirst;
		}

		@Override
		public Set<String> limitNames() {
			return Set.of(this.limitName);
		}

		@Override
		public void check(String limitName, @Nullable RateLimitPolicy policy) {
		}

		@Override
		public CompletableFuture<byte[]> decide(RateLimitCall call) {
			if (!this.refusesFirst) {
				throw new IllegalStateException("a decider's defect");
			}
			if (this.refused.compareAndSet(false, true)) {
				// the script's reply: refused, none left, retry after 100 ms, reset
				// after 2 s, by the first window, decided now, the first window refused
				ByteBuffer reply = ByteBuffer.allocate(7 * 8).order(ByteOrder.LITTLE_ENDIAN);
				for (double number : new double[] { 0, 0, 100, 2000, 0, System.currentTimeMillis(), 1 }) {
					reply.putDouble(number);
				}
				return CompletableFuture.completedFuture(reply.array());
			}
			return CompletableFuture.failedFuture(new IllegalStateException("a decider's defect"));
		}

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
