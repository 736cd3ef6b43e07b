package io.github.redkit.ratelimit;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedisScriptRunner;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.test.RedisTopologies;
import io.github.redkit.test.RedisTopology;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.RedisServerCommands;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bound each algorithm states in the README, attacked by the worst client we can
 * think of: several threads calling as fast as they can for several periods, started at a
 * random phase of the window or just before a window boundary. Every allowed call is
 * placed on Redis' clock, and the largest number of allowed calls in <em>any</em>
 * interval of one period must stay within the bound.
 */
@ParameterizedClass
@RedisTopologies
class RateLimitBoundTests {

	private static final int LIMIT = 10;

	private static final Duration PERIOD = Duration.ofMillis(500);

	private static final int THREADS = 4;

	private static final int PERIODS = 4;

	@Parameter
	RedisTopology topology;

	private RedisScriptRunner runner;

	private RedisRateLimiter limiter;

	@BeforeEach
	void createLimiter() {
		this.runner = new RedisScriptRunner(this.topology.connectionFactory());
		this.limiter = new RedisRateLimiter(this.runner, new RedisKeyspace("rl-bound"), Map.of(),
				RateLimitFailureMode.DENY, Duration.ofSeconds(5), Duration.ZERO, RedkitMetrics.NONE);
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void noPeriodHoldsMoreThanTheBoundFromARandomPhase(RateLimitAlgorithm algorithm) throws Exception {
		long start = nowMicros() + ThreadLocalRandom.current().nextLong(PERIOD.toNanos() / 1000);
		assertThat(busiestPeriod(algorithm, start)).isLessThanOrEqualTo(maxPerPeriod(algorithm));
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void noPeriodHoldsMoreThanTheBoundFromJustBeforeABoundary(RateLimitAlgorithm algorithm) throws Exception {
		long period = PERIOD.toNanos() / 1000;
		long offset = redisOffsetMicros();
		long nextBoundary = ((nowMicros() + offset) / period + 1) * period - offset;
		assertThat(busiestPeriod(algorithm, nextBoundary - 20_000)).isLessThanOrEqualTo(maxPerPeriod(algorithm));
	}

	/**
	 * Drives the limit from {@code start} (local µs) and returns the most allowed calls
	 * that surely fell in one period: a call counts for an interval only when it was sent
	 * after the interval began and answered before it ended, so Redis' decision certainly
	 * lies inside (Redis runs on this host and shares its clock).
	 */
	private int busiestPeriod(RateLimitAlgorithm algorithm, long start) throws InterruptedException {
		RateLimitPolicy policy = new RateLimitPolicy(algorithm, List.of(RateLimitWindow.of(LIMIT, PERIOD)));
		String name = UUID.randomUUID().toString();
		long end = start + PERIODS * PERIOD.toNanos() / 1000;
		ConcurrentLinkedQueue<long[]> allowed = new ConcurrentLinkedQueue<>();
		CountDownLatch done = new CountDownLatch(THREADS);
		for (int t = 0; t < THREADS; t++) {
			Thread client = new Thread(() -> {
				try {
					waitUntil(start);
					while (nowMicros() < end) {
						long sent = nowMicros();
						if (this.limiter.tryAcquire(name, policy, List.of("client"), 1).allowed()) {
							allowed.add(new long[] { sent, nowMicros() });
						}
					}
				}
				finally {
					done.countDown();
				}
			});
			client.setDaemon(true);
			client.start();
		}
		done.await();
		List<long[]> calls = new ArrayList<>(allowed);
		calls.sort(Comparator.comparingLong((call) -> call[0]));
		long period = PERIOD.toNanos() / 1000;
		int busiest = 0;
		for (int i = 0; i < calls.size(); i++) {
			long from = calls.get(i)[0];
			int inside = 0;
			for (int j = i; j < calls.size() && calls.get(j)[0] < from + period; j++) {
				if (calls.get(j)[1] < from + period) {
					inside++;
				}
			}
			busiest = Math.max(busiest, inside);
		}
		assertThat(calls).as("calls allowed over %d periods", PERIODS).hasSizeGreaterThanOrEqualTo(PERIODS * LIMIT / 2);
		return busiest;
	}

	/**
	 * The bounds the README states, in allowed calls per any interval of one period.
	 */
	private static int maxPerPeriod(RateLimitAlgorithm algorithm) {
		return switch (algorithm) {
			// a full window at the end of one window, another at the start of the next
			case FIXED_WINDOW -> 2 * LIMIT;
			// the previous window's calls are assumed spread evenly: a client that sends
			// them all at its end gets up to almost twice the limit (issue 15 bounds
			// this)
			case SLIDING_WINDOW -> 2 * LIMIT;
			// a full bucket, then what one period refills
			case TOKEN_BUCKET -> 2 * LIMIT;
		};
	}

	private long redisOffsetMicros() {
		long before = nowMicros();
		long redisMillis = this.runner.template().execute(RedisServerCommands::time, true);
		long after = nowMicros();
		return redisMillis * 1000 - (before + after) / 2;
	}

	private static long nowMicros() {
		return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
	}

	private static void waitUntil(long micros) {
		while (nowMicros() < micros) {
			LockSupport.parkNanos(200_000);
		}
	}

}
