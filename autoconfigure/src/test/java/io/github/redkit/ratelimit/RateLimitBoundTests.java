package io.github.redkit.ratelimit;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.AlgorithmDescriptor;
import io.github.redkit.ratelimit.internal.PreparedLimit;
import io.github.redkit.testsupport.BusiestInterval;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
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
 * placed on Redis' clock (the time its script decided with), and the largest number of
 * allowed calls in <em>any</em> interval of one period must stay within the bound.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class RateLimitBoundTests {

	private static final int LIMIT = 10;

	// short: the bound is judged on Redis' clock, in any interval of one period, so a
	// shorter period proves the same in less time (Redis decides to the microsecond)
	private static final Duration PERIOD = Duration.ofMillis(100);

	private static final int THREADS = 4;

	// the clients keep the machine busy for as long as they run (about 16 CPU-seconds
	// for standalone and cluster with four periods of 200 ms), so the periods are what
	// the suite costs: two still cross a window boundary (from just before one, two) and
	// take a token bucket from full through a period of refills
	private static final int PERIODS = 2;

	// a cold JVM on a loaded machine may not reach the limit within two periods (seen at
	// load 30, and within eight at load 32): the run then goes on until a call was
	// refused, up to this many periods (5 s), longer than the four it always ran before
	private static final int MAX_PERIODS = 50;

	@Parameter
	RedisTopology topology;

	private RedisScriptRunner runner;

	@BeforeEach
	void createRunnerAndLoadTheScripts() {
		this.runner = new RedisScriptRunner(this.topology.connectionFactory());
		// connecting and loading a script must not eat into the timed periods
		for (RateLimitAlgorithm algorithm : RateLimitAlgorithm.values()) {
			RateLimitPolicy policy = new RateLimitPolicy(algorithm, List.of(RateLimitWindow.of(LIMIT, PERIOD)));
			PreparedLimit limit = PreparedLimit.of("warm-up", policy, new RedisKeyspace("rl-bound"));
			// untimed: a fresh JVM's first call connects, which took over 5 s at load 30
			this.runner.execute(LuaScript.load(AlgorithmDescriptor.of(algorithm).scriptName(), byte[].class),
					Duration.ofSeconds(30), List.of(limit.key("warm-up")), limit.arguments(1));
		}
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
	 * Drives the limit from {@code start} (local µs) with the limiter's own script and
	 * arguments, records the Redis time of every allowed call (the time the script
	 * decided with, from its reply) and returns the most allowed calls in any interval
	 * {@code [t, t + period)}.
	 */
	private int busiestPeriod(RateLimitAlgorithm algorithm, long start) throws InterruptedException {
		RateLimitPolicy policy = new RateLimitPolicy(algorithm, List.of(RateLimitWindow.of(LIMIT, PERIOD)));
		PreparedLimit limit = PreparedLimit.of(UUID.randomUUID().toString(), policy, new RedisKeyspace("rl-bound"));
		LuaScript<byte[]> script = LuaScript.load(AlgorithmDescriptor.of(algorithm).scriptName(), byte[].class);
		List<String> keys = List.of(limit.key("client"));
		long end = start + PERIODS * PERIOD.toNanos() / 1000;
		long latest = start + MAX_PERIODS * PERIOD.toNanos() / 1000;
		ConcurrentLinkedQueue<Double> allowed = new ConcurrentLinkedQueue<>();
		ConcurrentLinkedQueue<Double> refused = new ConcurrentLinkedQueue<>();
		CountDownLatch done = new CountDownLatch(THREADS);
		for (int t = 0; t < THREADS; t++) {
			Thread client = new Thread(() -> {
				try {
					waitUntil(start);
					while (nowMicros() < end || (refused.isEmpty() && nowMicros() < latest)) {
						byte[] reply = this.runner.execute(script, Duration.ofSeconds(5), keys, limit.arguments(1));
						double decidedAt = ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN).getDouble(40);
						(limit.decision(reply).allowed() ? allowed : refused).add(decidedAt);
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
		List<Double> times = new ArrayList<>(allowed);
		int busiest = BusiestInterval.of(times, PERIOD.toMillis());
		System.out.printf("Rate-limit bound (%s, %s): %d allowed, at most %d in one period%n", this.topology, algorithm,
				times.size(), busiest);
		// the worst client must still be served: no algorithm starves it. Judged per
		// refusal on Redis' clock, not by a count over the run's wall time, which a
		// loaded machine that stalls the clients would make fail
		assertThat(refused).as("the clients reached the limit").isNotEmpty();
		for (double at : refused) {
			double since = countedSince(algorithm, at);
			long counted = times.stream().filter((time) -> time >= since - 1 && time <= at).count();
			assertThat(counted).as("calls counted against a refusal at %f", at).isGreaterThanOrEqualTo(LIMIT);
		}
		return busiest;
	}

	/**
	 * The Redis time from which the allowed calls still count against a call decided at
	 * {@code at}: a refusal is only right when at least the limit were allowed since.
	 */
	private static double countedSince(RateLimitAlgorithm algorithm, double at) {
		double period = PERIOD.toMillis();
		return switch (algorithm) {
			// the calendar window the call falls in
			case FIXED_WINDOW -> at - at % period;
			// the oldest sub-window still counted: one period and one sub-window back
			case SLIDING_WINDOW -> at - period - period / RateLimitPolicy.DEFAULT_SUB_WINDOWS;
			// a bucket is full again one period after it was emptied: what was allowed in
			// the last period is what emptied it
			case TOKEN_BUCKET, SLIDING_LOG -> at - period;
		};
	}

	/**
	 * The bounds the README states, in allowed calls per any interval of one period.
	 */
	private static int maxPerPeriod(RateLimitAlgorithm algorithm) {
		return switch (algorithm) {
			// a full window at the end of one window, another at the start of the next
			case FIXED_WINDOW -> 2 * LIMIT;
			// a call counts until one period after the end of its sub-window
			case SLIDING_WINDOW, SLIDING_LOG -> LIMIT;
			// a full bucket, then what one period refills (the last token lands on the
			// interval's end)
			case TOKEN_BUCKET -> 2 * LIMIT - 1;
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
