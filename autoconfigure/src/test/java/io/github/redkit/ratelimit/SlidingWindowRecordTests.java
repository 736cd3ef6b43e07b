package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.PreparedLimit;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sliding window's record: what a decision reads and writes, what it keeps, and how
 * it carries its counts across a change of policy and past the largest count its bytes
 * hold. On a server of its own, so that its commands can be counted.
 */
class SlidingWindowRecordTests {

	@PrivateRedis
	private static RedisServer redis;

	@PrivateRedis
	private static LettuceConnectionFactory connectionFactory;

	private RedisScriptRunner runner;

	private RedisRateLimiter limiter;

	// calls made by acquireAndSubWindow
	private int made;

	@BeforeEach
	void emptyRedis() {
		// the server is the class's: each test starts from an empty one
		redis.flushAll();
		this.runner = new RedisScriptRunner(connectionFactory);
		this.limiter = new RedisRateLimiter(this.runner, new RedisKeyspace("sw-test"), Map.of(),
				new RateLimitSettings(LimitFailureMode.DENY, Duration.ofSeconds(5), Duration.ZERO), RedkitMetrics.NONE,
				RedkitObservations.NONE);
	}

	@Test
	void aCallInTheNewestSubWindowsRewritesOnlyTheHeaderInOneScript() {
		RateLimitPolicy policy = RateLimitPolicy.slidingWindow(RateLimitWindow.of(1000, Duration.ofHours(1)),
				RateLimitWindow.of(100, Duration.ofHours(2)), RateLimitWindow.of(10_000, Duration.ofDays(1)));
		assertThat(acquire(policy, "u").allowed()).isTrue();
		CommandStats before = redis.commandStats();
		for (int i = 0; i < 50; i++) {
			assertThat(acquire(policy, "u").allowed()).isTrue();
		}
		CommandStats used = redis.commandStats().since(before);
		// one script per decision; in it TIME, GET and a SETRANGE of the header: no SET
		// of
		// the whole record, no expiry
		assertThat(used.total()).as("%s", used).isLessThanOrEqualTo(4 * 50 + 1);
		assertThat(used.calls("evalsha") + used.calls("eval")).isEqualTo(50);
		assertThat(used.calls("setrange")).as("%s", used).isGreaterThanOrEqualTo(49);
		assertThat(size(policy, "u")).as("a header only: no sub-window but the newest holds calls")
			.isEqualTo(1 + 3 * 4 + 8 + 3 * (4 + 2 + 1));
		assertThat(acquire(policy, "u").remaining()).isEqualTo(100 - 52);
	}

	@Test
	void theRingsAreKeptOnlyWhileAnOlderSubWindowHoldsCalls() {
		// four sub-windows of 200 ms
		RateLimitPolicy policy = new RateLimitPolicy(RateLimitAlgorithm.SLIDING_WINDOW,
				List.of(RateLimitWindow.of(100, Duration.ofMillis(800))), 4);
		int header = 1 + 4 + 8 + (4 + 2 + 1);
		long first = acquireAndSubWindow(policy, "u");
		assertThat(size(policy, "u")).isEqualTo(header);
		long second = acquireInSubWindowFrom(policy, "u", first + 1);
		// the first sub-window's calls moved to the ring: 4 counts of 2 bytes
		assertThat(size(policy, "u")).isEqualTo(header + 4 * 2);
		assertThat(usage(policy, "u")).isEqualTo(this.made);
		// a call once both are forgotten (a period after the end of the second): no ring
		this.made = 0;
		acquireInSubWindowFrom(policy, "u", second + 5);
		assertThat(size(policy, "u")).isEqualTo(header);
		assertThat(usage(policy, "u")).isEqualTo(this.made);
	}

	@Test
	void aChangedPolicyKeepsTheCountsOfTheWindowsItKeepsByTheirPeriod() {
		RateLimitPolicy before = new RateLimitPolicy(RateLimitAlgorithm.SLIDING_WINDOW,
				List.of(RateLimitWindow.of(10, Duration.ofSeconds(40))), 4);
		// calls in two sub-windows of 10 s, so that the ring holds some of them
		for (int i = 0; i < 3; i++) {
			assertThat(acquire(before, "u").allowed()).isTrue();
		}
		RateLimitPolicy after = new RateLimitPolicy(RateLimitAlgorithm.SLIDING_WINDOW,
				List.of(RateLimitWindow.of(1000, Duration.ofHours(1)), RateLimitWindow.of(10, Duration.ofSeconds(40))),
				4);
		assertThat(acquire(after, "u").remaining()).isEqualTo(10 - 4);
		for (int i = 0; i < 6; i++) {
			assertThat(acquire(after, "u").allowed()).isTrue();
		}
		RateLimitDecision refused = acquire(after, "u");
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.window()).isEqualTo(after.windows().get(1));
		// and back: the window kept its count again
		assertThat(acquire(before, "u").allowed()).isFalse();
	}

	@Test
	void aCountPastTheLargestItsBytesHoldStillRefusesAndIsNeverGivenBack() {
		RateLimitPolicy policy = RateLimitPolicy.slidingWindow(RateLimitWindow.of(10, Duration.ofHours(1)));
		RateLimitReservation heavy = this.limiter.reserve("heavy", "heavy", policy, List.of("u"), 5);
		RateLimitReservation light = this.limiter.reserve("heavy", "heavy", policy, List.of("u"), 5);
		assertThat(heavy.decision().allowed()).isTrue();
		assertThat(light.decision().allowed()).isTrue();
		// 100,000 is past the 65,535 a 2-byte count holds
		assertThat(heavy.settle(100_000)).isTrue();
		assertThat(light.settle(0)).isTrue();
		// the saturated count is not lowered by the give-back: still more than the limit
		assertThat(this.limiter.tryAcquire("heavy", "heavy", policy, List.of("u"), 1).allowed()).isFalse();
		assertThat(usage("heavy", policy, "u")).as("shown up to the limit").isEqualTo(10);
	}

	private RateLimitDecision acquire(RateLimitPolicy policy, String key) {
		return this.limiter.tryAcquire("record", "record", policy, List.of(key), 1);
	}

	private long size(RateLimitPolicy policy, String key) {
		String stored = PreparedLimit.of("record", policy, new RedisKeyspace("sw-test")).key(key);
		return this.runner.template().opsForValue().size(stored);
	}

	private long usage(RateLimitPolicy policy, String key) {
		return usage("record", policy, key);
	}

	private long usage(String limit, RateLimitPolicy policy, String key) {
		try (RedisConnection connection = connectionFactory.getConnection()) {
			return RateLimitUsage
				.read(connection, RateLimitUsage.key(new RedisKeyspace("sw-test"), limit, policy, key), policy)
				.get(0)
				.used();
		}
	}

	// one call, and the sub-window (of 200 ms) Redis' clock was in when it was made
	private long acquireAndSubWindow(RateLimitPolicy policy, String key) {
		long before = redisTimeMillis() / 200;
		assertThat(acquire(policy, key).allowed()).isTrue();
		this.made++;
		long after = redisTimeMillis() / 200;
		// a call on the boundary: try again in the next sub-window
		return (before == after) ? before : acquireAndSubWindow(policy, key);
	}

	// one call in a sub-window from the given one on, and the sub-window it was made in
	private long acquireInSubWindowFrom(RateLimitPolicy policy, String key, long subWindow) {
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> redisTimeMillis() / 200 >= subWindow);
		return acquireAndSubWindow(policy, key);
	}

	private long redisTimeMillis() {
		return this.runner.template().execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
	}

}
