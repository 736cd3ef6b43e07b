package io.github.redkit.ratelimit.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitFailureMode;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sweep that forgets idle identifiers while calls of those identifiers go on: a call
 * that found an identifier's holder just before the sweep forgot it must not take a batch
 * into the forgotten holder, which nothing would ever give back (and which, next to the
 * new holder's, would be a second batch held for the identifier). Several threads call a
 * few identifiers continuously, batches end every millisecond and the sweep runs as often
 * as it may; once the limiter has stopped, Redis counts exactly the calls that were
 * allowed, identifier by identifier.
 */
class RateLimitAllowancePurgeTests {

	private static final long LIMIT = 100_000_000;

	private static final int KEYS = 16;

	private static final int THREADS = 8;

	@Test
	void onceStoppedRedisCountsExactlyTheCallsAllowedWhileTheSweepForgetsIdentifiers() throws Exception {
		RateLimitPolicy policy = new RateLimitPolicy(RateLimitAlgorithm.FIXED_WINDOW,
				List.of(RateLimitWindow.of(LIMIT, Duration.ofDays(1))));
		// the clock is read between finding a holder and using it: yielding there lets
		// the sweep run in between more often than it would on its own
		RedisRateLimiter limiter = new RedisRateLimiter(
				new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory()),
				new RedisKeyspace("rap-" + UUID.randomUUID()), Map.of("hot", policy),
				new RateLimitSettings(RateLimitFailureMode.of(LimitFailureMode.DENY), Duration.ofSeconds(15),
						Duration.ZERO, null, Map.of("hot", new LocalAllowance(20, Duration.ofNanos(1_000)))),
				RedkitMetrics.NONE, RedkitObservations.NONE, new LocalAllowances.Sweep(() -> {
					if (ThreadLocalRandom.current().nextInt(4) == 0) {
						Thread.yield();
					}
					return System.nanoTime();
				}, 0));
		limiter.start();
		AtomicLongArray allowed = new AtomicLongArray(KEYS);
		AtomicLong calls = new AtomicLong();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
		CountDownLatch done = new CountDownLatch(THREADS);
		List<Thread> callers = new ArrayList<>();
		for (int t = 0; t < THREADS; t++) {
			Thread caller = new Thread(() -> {
				try {
					while (System.nanoTime() < end) {
						int key = ThreadLocalRandom.current().nextInt(KEYS);
						RateLimitDecision decision = ThreadLocalRandom.current().nextBoolean()
								? limiter.tryAcquire("hot", List.of("k" + key), 1)
								: limiter.tryAcquireAsync("hot", List.of("k" + key), 1).join();
						if (decision.allowed()) {
							allowed.incrementAndGet(key);
						}
						calls.incrementAndGet();
					}
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
				finally {
					done.countDown();
				}
			});
			caller.setDaemon(true);
			callers.add(caller);
			caller.start();
		}
		done.await();
		assertThat(failure.get()).isNull();
		limiter.stop();
		long[] expected = new long[KEYS];
		long[] counted = new long[KEYS];
		for (int key = 0; key < KEYS; key++) {
			// stopped: one call straight to Redis, which tells what it counted before it
			expected[key] = LIMIT - allowed.get(key) - 1;
			counted[key] = limiter.tryAcquire("hot", List.of("k" + key), 1).remaining();
		}
		assertThat(counted).as("what Redis has left per identifier after %d calls", calls.get())
			.containsExactly(expected);
	}

}
