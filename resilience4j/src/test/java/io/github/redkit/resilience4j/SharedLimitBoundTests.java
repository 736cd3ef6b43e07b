package io.github.redkit.resilience4j;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.BusiestInterval;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several instances of an application, each with its own Redkit rate limiter and
 * connection and its own Resilience4j {@link RedkitRateLimiter} on one Redkit limit of
 * two windows, driven continuously by several threads from a random phase: the calls they
 * let through, placed on Redis' clock (the time each decision was made at), stay within
 * the bound the README states for the algorithm in <em>every</em> interval of each
 * window's period (as {@code RateLimitBoundTests} checks Redkit's own calls).
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class SharedLimitBoundTests {

	// short periods: the bound is judged on Redis' clock, so a shorter period proves the
	// same in less time; the clients keep the machine busy for as long as they run, so
	// the run is what the class costs. It crosses the long window's boundary (from a
	// random phase) and four of the short one's. The long window's bound must be below
	// what the short one alone lets through in one long period (fixed window: 5 × 10 =
	// 50 > 2 × 18; token bucket: 10 + 39 = 49 > 2 × 18 - 1): a build that forgets the
	// long window's count, whose key expires with the short window, then fails
	private static final RateLimitWindow SHORT = RateLimitWindow.of(10, Duration.ofMillis(100));

	private static final RateLimitWindow LONG = RateLimitWindow.of(18, Duration.ofMillis(400));

	private static final int INSTANCES = 3;

	private static final int THREADS_PER_INSTANCE = 2;

	private static final Duration RUN = Duration.ofMillis(450);

	@Parameter
	RedisTopology topology;

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void everyIntervalOfEveryWindowStaysWithinTheBound(RateLimitAlgorithm algorithm) throws Exception {
		RateLimitPolicy policy = new RateLimitPolicy(algorithm, List.of(SHORT, LONG));
		RedisKeyspace keyspace = new RedisKeyspace("r4j-bound-" + UUID.randomUUID());
		Queue<Double> decidedAt = new ConcurrentLinkedQueue<>();
		List<RateLimiter> instances = new ArrayList<>();
		for (int i = 0; i < INSTANCES; i++) {
			RedisRateLimiter redkit = new RedisRateLimiter(new RedisScriptRunner(this.topology.connectionFactory()),
					keyspace, Map.of("partner-api", policy),
					new RateLimitSettings(LimitFailureMode.DENY, Duration.ofSeconds(5), Duration.ZERO),
					RedkitMetrics.NONE, RedkitObservations.NONE, List.of());
			// connected and the script loaded before the timed run
			redkit.tryAcquire("partner-api", "warm-up-" + i);
			instances.add(new RedkitRateLimiter("partnerApi",
					RateLimiterConfig.custom().timeoutDuration(Duration.ZERO).build(), Map.of(),
					new Recording(redkit, decidedAt), "partner-api", "partnerApi", (l, p, k) -> 0));
		}
		AtomicInteger permitted = new AtomicInteger();
		AtomicInteger refused = new AtomicInteger();
		long start = nowMicros() + 50_000 + ThreadLocalRandom.current().nextLong(SHORT.period().toNanos() / 1000);
		long end = start + RUN.toNanos() / 1000;
		CountDownLatch done = new CountDownLatch(INSTANCES * THREADS_PER_INSTANCE);
		for (RateLimiter instance : instances) {
			for (int t = 0; t < THREADS_PER_INSTANCE; t++) {
				Thread client = new Thread(() -> {
					try {
						waitUntil(start);
						while (nowMicros() < end) {
							(instance.acquirePermission() ? permitted : refused).incrementAndGet();
						}
					}
					finally {
						done.countDown();
					}
				});
				client.setDaemon(true);
				client.start();
			}
		}
		assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
		assertThat(refused.get()).as("the clients reached the limit").isPositive();
		assertThat(permitted.get()).as("one Redis decision behind every permit").isEqualTo(decidedAt.size());
		for (RateLimitWindow window : policy.windows()) {
			int busiest = BusiestInterval.of(decidedAt, window.period().toMillis());
			System.out.printf("Resilience4j on Redkit (%s, %s, %s): %d permitted, at most %d in one period%n",
					this.topology, algorithm, window, permitted.get(), busiest);
			assertThat((long) busiest).as("permits in one interval of %s", window.period())
				.isLessThanOrEqualTo(maxPerPeriod(algorithm, window.limit()));
		}
	}

	/**
	 * The bounds the README states, in allowed calls per any interval of one period.
	 */
	private static long maxPerPeriod(RateLimitAlgorithm algorithm, long limit) {
		return switch (algorithm) {
			case FIXED_WINDOW -> 2 * limit;
			case SLIDING_WINDOW, SLIDING_LOG -> limit;
			case TOKEN_BUCKET -> 2 * limit - 1;
		};
	}

	private static long nowMicros() {
		return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
	}

	private static void waitUntil(long micros) {
		while (nowMicros() < micros) {
			LockSupport.parkNanos(200_000);
		}
	}

	/**
	 * Redkit's rate limiter, noting the Redis time of every call it allows.
	 */
	private record Recording(RedisRateLimiter delegate,
			Queue<Double> decidedAt) implements io.github.redkit.ratelimit.RateLimiter {

		@Override
		public RateLimitDecision tryAcquire(String limitName, List<String> keys, int cost) {
			return noted(this.delegate.tryAcquire(limitName, keys, cost));
		}

		@Override
		public RateLimitDecision tryAcquire(String limitName, RateLimitPolicy policy, List<String> keys, int cost) {
			return noted(this.delegate.tryAcquire(limitName, policy, keys, cost));
		}

		@Override
		public void define(String limitName, RateLimitPolicy policy) {
			this.delegate.define(limitName, policy);
		}

		@Override
		public Optional<RateLimitPolicy> policy(String limitName) {
			return this.delegate.policy(limitName);
		}

		private RateLimitDecision noted(RateLimitDecision decision) {
			if (decision.allowed()) {
				Instant at = decision.decidedAt();
				assertThat(at).as("the Redis time of an allowed decision").isNotNull();
				this.decidedAt.add(at.getEpochSecond() * 1000.0 + at.getNano() / 1_000_000.0);
			}
			return decision;
		}

	}

}
