package io.github.redkit.ratelimit;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.AlgorithmDescriptor;
import io.github.redkit.ratelimit.internal.PreparedLimit;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.data.redis.connection.RedisServerCommands;
import org.springframework.data.redis.core.RedisCallback;

/**
 * What each algorithm lets through around a window boundary, timed on Redis' clock: a
 * burst at the end of one window and another at the start of the next.
 */
class RateLimitAlgorithmBoundaryTests {

	private static final Duration PERIOD = Duration.ofSeconds(1);

	private RedisScriptRunner runner;

	private RedisRateLimiter limiter;

	@BeforeEach
	void createLimiter() {
		this.runner = new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory());
		this.limiter = new RedisRateLimiter(this.runner, new RedisKeyspace("rl-boundary"), Map.of(),
				new RateLimitSettings(LimitFailureMode.ALLOW, Duration.ofSeconds(5), Duration.ZERO), RedkitMetrics.NONE,
				RedkitObservations.NONE);
	}

	@Test
	void fixedWindowLetsTwiceTheLimitThroughAcrossABoundary() {
		assertThat(burstsAroundBoundary(RateLimitAlgorithm.FIXED_WINDOW)).isEqualTo(10);
	}

	@Test
	void slidingWindowDoesNot() {
		assertThat(burstsAroundBoundary(RateLimitAlgorithm.SLIDING_WINDOW)).isEqualTo(5);
	}

	@Test
	void tokenBucketRefillsOnlyWhatTimeEarned() {
		RateLimitPolicy policy = new RateLimitPolicy(RateLimitAlgorithm.TOKEN_BUCKET,
				List.of(RateLimitWindow.of(5, PERIOD)));
		String name = UUID.randomUUID().toString();
		assertThat(this.limiter.tryAcquire(name, policy, List.of("u"), 5).allowed()).isTrue();
		RateLimitDecision refused = this.limiter.tryAcquire(name, policy, List.of("u"), 5);
		assertThat(refused.allowed()).isFalse();
		long oneToken = System.nanoTime() + Duration.ofMillis(200).toNanos();
		waitUntil(System.currentTimeMillis() + 220);
		assertThat(this.limiter.tryAcquire(name, policy, List.of("u"), 1).allowed()).isTrue();
		if (System.nanoTime() - oneToken < Duration.ofMillis(150).toNanos()) {
			assertThat(this.limiter.tryAcquire(name, policy, List.of("u"), 2).allowed()).isFalse();
		}
	}

	@Test
	void tokenBucketTakenOneTokenAtATimeOwesAWholePeriodNeverLess() {
		// one token of 18 per 400 s is 22,222.2… ms, which no double near today's time in
		// ms holds (their step is 2^-12 ms): rounded to the nearest, each call's TAT fell
		// 0.05 µs short, and a bucket drained one call at a time refilled its last token
		// that much early (36 permits in one 400 ms interval of SharedLimitBoundTests,
		// against 2 x 18 - 1). Every call here finds the bucket still owed, so the TAT
		// only adds up
		int limit = 18;
		Duration period = Duration.ofSeconds(400);
		RateLimitPolicy policy = new RateLimitPolicy(RateLimitAlgorithm.TOKEN_BUCKET,
				List.of(RateLimitWindow.of(limit, period)));
		PreparedLimit prepared = PreparedLimit.of(UUID.randomUUID().toString(), policy,
				new RedisKeyspace("rl-boundary"));
		LuaScript<byte[]> script = LuaScript.load(AlgorithmDescriptor.of(RateLimitAlgorithm.TOKEN_BUCKET).scriptName(),
				byte[].class);
		String key = prepared.key("u");
		double first = 0;
		for (int i = 0; i < limit; i++) {
			byte[] reply = this.runner.execute(script, Duration.ofSeconds(5), List.of(key), prepared.arguments(1));
			RateLimitDecision decision = prepared.decision(reply);
			assertThat(decision.allowed()).isTrue();
			// what the bucket still holds, though the TAT is rounded up
			assertThat(decision.remaining()).as("remaining after call %d", i + 1).isEqualTo(limit - 1 - i);
			if (i == 0) {
				first = ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN).getDouble(40);
			}
		}
		byte[] record = this.runner.template()
			.execute((RedisCallback<byte[]>) (connection) -> connection.stringCommands()
				.get(key.getBytes(StandardCharsets.UTF_8)), true);
		double tat = ByteBuffer.wrap(record).order(ByteOrder.LITTLE_ENDIAN).getDouble(8);
		// first + 400,000 is itself a double: the exact TAT of the drained bucket
		double owed = first + period.toMillis();
		assertThat(tat).as("the TAT of the bucket drained from %f", first).isGreaterThanOrEqualTo(owed);
		assertThat(tat).as("late by less than one step of a double per call").isLessThan(owed + limit * Math.ulp(owed));
	}

	@Test
	void tokenBucketCountsWhatAFullBucketHoldsAfterOneCall() {
		// tokens of 166.6… ms and 666.6… ms: the TAT's sum is no double near today's time
		// in ms, and rounded up it hid a token of what the bucket holds
		for (RateLimitWindow window : List.of(RateLimitWindow.of(6, Duration.ofSeconds(1)),
				RateLimitWindow.of(3, Duration.ofSeconds(2)), RateLimitWindow.of(18, Duration.ofMillis(400)))) {
			RateLimitPolicy policy = new RateLimitPolicy(RateLimitAlgorithm.TOKEN_BUCKET, List.of(window));
			RateLimitDecision first = this.limiter.tryAcquire(UUID.randomUUID().toString(), policy, List.of("u"), 1);
			assertThat(first.allowed()).isTrue();
			assertThat(first.remaining()).as("remaining of %s after one call", window).isEqualTo(window.limit() - 1);
		}
	}

	@Test
	void tokenBucketAllowsACallOfItsWholeLimitOnAFreshBucket() {
		// 15 x fl(1000 / 15) is 1000.0000000000001: a call's share counted as cost times
		// the token put the rounded-up TAT one step past a whole period, and the call was
		// refused (retry-after 1 ms) every time
		for (RateLimitWindow window : List.of(RateLimitWindow.of(15, Duration.ofSeconds(1)),
				RateLimitWindow.of(30, Duration.ofSeconds(1)), RateLimitWindow.of(11, Duration.ofMillis(100)))) {
			RateLimitPolicy policy = new RateLimitPolicy(RateLimitAlgorithm.TOKEN_BUCKET, List.of(window));
			RateLimitDecision whole = this.limiter.tryAcquire(UUID.randomUUID().toString(), policy, List.of("u"),
					(int) window.limit());
			assertThat(whole.allowed()).as("a call of %s's whole limit", window).isTrue();
			assertThat(whole.remaining()).isZero();
		}
	}

	private int burstsAroundBoundary(RateLimitAlgorithm algorithm) {
		RateLimitPolicy policy = new RateLimitPolicy(algorithm, List.of(RateLimitWindow.of(5, PERIOD)));
		long period = PERIOD.toMillis();
		for (int attempt = 0;; attempt++) {
			String name = UUID.randomUUID().toString();
			long offset = redisMillis() - System.currentTimeMillis();
			long boundary = ((System.currentTimeMillis() + offset) / period + 2) * period - offset;
			waitUntil(boundary - 300);
			int allowed = burst(name, policy);
			long first = System.currentTimeMillis();
			waitUntil(boundary + 20);
			allowed += burst(name, policy);
			// on a loaded machine a call can be late: try again unless it landed where
			// planned
			if ((first < boundary - 50 && System.currentTimeMillis() < boundary + 250) || attempt == 4) {
				return allowed;
			}
		}
	}

	/**
	 * A burst of the whole limit in one call: one script, so a loaded machine cannot
	 * split it.
	 */
	private int burst(String name, RateLimitPolicy policy) {
		return this.limiter.tryAcquire(name, policy, List.of("u"), 5).allowed() ? 5 : 0;
	}

	private long redisMillis() {
		return this.runner.template().execute(RedisServerCommands::time, true);
	}

	private static void waitUntil(long epochMillis) {
		while (System.currentTimeMillis() < epochMillis) {
			LockSupport.parkNanos(1_000_000);
		}
	}

}
