package io.github.redkit.ratelimit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.PreparedLimit;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.CommandLog;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

@ParameterizedClass
@RedisTopologies(exercises = Exercises.BOTH)
class RedisRateLimiterTests {

	@Parameter
	RedisTopology topology;

	private RedisServer redis;

	private RedisScriptRunner runner;

	private RedisRateLimiter limiter;

	private final String id = UUID.randomUUID().toString();

	/**
	 * How long a decision waits for Redis: every decision here is Redis', never the
	 * failure mode's (with 5 s, 67 of 320 decisions of sixteen threads failed open at a
	 * load near 50 on 2 cores, and the test counted 167 allowed of a limit of 100).
	 */
	private static final Duration DECISION_TIMEOUT = Duration.ofSeconds(60);

	/** Per topology, connections whose commands wait as long; closed after the class. */
	private static final Map<RedisTopology, LettuceConnectionFactory> CONNECTIONS = new ConcurrentHashMap<>();

	@AfterAll
	static void closeConnections() {
		CONNECTIONS.values().forEach(LettuceConnectionFactory::destroy);
		CONNECTIONS.clear();
	}

	@BeforeEach
	void createLimiter() {
		this.redis = this.topology.server();
		this.runner = new RedisScriptRunner(CONNECTIONS.computeIfAbsent(this.topology,
				(topology) -> (topology == RedisTopology.POOLED)
						? topology.server().createPooledConnectionFactory(DECISION_TIMEOUT)
						: topology.server().createConnectionFactory(DECISION_TIMEOUT)));
		this.limiter = new RedisRateLimiter(this.runner, new RedisKeyspace("rl-test"), Map.of(),
				new RateLimitSettings(LimitFailureMode.ALLOW, DECISION_TIMEOUT, Duration.ZERO), RedkitMetrics.NONE,
				RedkitObservations.NONE);
	}

	private RateLimitPolicy policy(RateLimitAlgorithm algorithm, RateLimitWindow... windows) {
		return new RateLimitPolicy(algorithm, List.of(windows));
	}

	private RateLimitDecision acquire(RateLimitPolicy policy, String... keys) {
		return this.limiter.tryAcquire(this.id, policy, List.of(keys), 1);
	}

	@Test
	void anInlinePolicyThatChangesUnderTheSameNameAppliesAtOnceAndKeepsItsCounters() {
		RateLimitPolicy three = RateLimitPolicy.slidingWindow(RateLimitWindow.of(3, Duration.ofHours(1)));
		RateLimitPolicy five = RateLimitPolicy.slidingWindow(RateLimitWindow.of(5, Duration.ofHours(1)));
		for (int i = 0; i < 3; i++) {
			assertThat(acquire(three, "changing").allowed()).isTrue();
		}
		assertThat(acquire(three, "changing").allowed()).isFalse();
		PreparedLimit prepared = this.limiter.inlineLimits().get(this.id);
		// an equal policy built again is the same limit, not prepared again
		assertThat(acquire(RateLimitPolicy.slidingWindow(RateLimitWindow.of(3, Duration.ofHours(1))), "changing")
			.allowed()).isFalse();
		assertThat(this.limiter.inlineLimits().get(this.id)).isSameAs(prepared);
		assertThat(acquire(five, "changing").remaining()).isEqualTo(1);
		assertThat(acquire(five, "changing").allowed()).isTrue();
		assertThat(acquire(five, "changing").allowed()).isFalse();
	}

	@Test
	void inlineLimitsShownUnderOneNameKeepTheirCountersApartByIdAndArePreparedOncePerId() {
		RateLimitPolicy one = RateLimitPolicy.slidingWindow(RateLimitWindow.of(1, Duration.ofHours(1)));
		RateLimitPolicy two = RateLimitPolicy.slidingWindow(RateLimitWindow.of(2, Duration.ofHours(1)));
		String first = this.id + ".send(java.lang.String)";
		String second = this.id + ".send(java.lang.String,int)";
		assertThat(this.limiter.tryAcquire("Mail.send", first, one, List.of("u"), 1).allowed()).isTrue();
		assertThat(this.limiter.tryAcquire("Mail.send", second, two, List.of("u"), 1).remaining()).isEqualTo(1);
		PreparedLimit firstPrepared = this.limiter.inlineLimits().get(first);
		PreparedLimit secondPrepared = this.limiter.inlineLimits().get(second);
		assertThat(this.limiter.tryAcquire("Mail.send", first, one, List.of("u"), 1).allowed()).isFalse();
		assertThat(this.limiter.tryAcquire("Mail.send", second, two, List.of("u"), 1).allowed()).isTrue();
		assertThat(this.limiter.tryAcquire("Mail.send", second, two, List.of("u"), 1).allowed()).isFalse();
		assertThat(this.limiter.inlineLimits().get(first)).isSameAs(firstPrepared);
		assertThat(this.limiter.inlineLimits().get(second)).isSameAs(secondPrepared);
		assertThat(firstPrepared.name()).isEqualTo("Mail.send");
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void allowsUpToTheLimitThenRefuses(RateLimitAlgorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, RateLimitWindow.of(3, Duration.ofHours(1)));
		assertThat(acquire(policy, "u").remaining()).isEqualTo(2);
		assertThat(acquire(policy, "u").remaining()).isEqualTo(1);
		RateLimitDecision last = acquire(policy, "u");
		assertThat(last.allowed()).isTrue();
		assertThat(last.remaining()).isZero();
		RateLimitDecision refused = acquire(policy, "u");
		assertThat(refused.allowed()).isFalse();
		// Redis runs on this host: its clock is this one
		assertThat(refused.decidedAt()).isNotNull()
			.isCloseTo(java.time.Instant.now(),
					org.assertj.core.api.Assertions.within(5, java.time.temporal.ChronoUnit.SECONDS))
			.isAfterOrEqualTo(last.decidedAt());
		assertThat(refused.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofHours(2));
		assertThat(refused.window()).isEqualTo(policy.windows().get(0));
		assertThat(acquire(policy, "other").allowed()).as("identifiers are counted apart").isTrue();
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void aRefusedCallConsumesNothingInAnyWindowOrIdentifier(RateLimitAlgorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, RateLimitWindow.of(2, Duration.ofHours(1)),
				RateLimitWindow.of(5, Duration.ofDays(1)));
		acquire(policy, "exhausted");
		acquire(policy, "exhausted");
		for (int i = 0; i < 3; i++) {
			assertThat(acquire(policy, "fresh", "exhausted").allowed()).isFalse();
		}
		RateLimitDecision fresh = acquire(policy, "fresh");
		assertThat(fresh.allowed()).isTrue();
		assertThat(fresh.remaining()).as("nothing was taken from 'fresh' by the refused calls").isEqualTo(1);
		await().atMost(Duration.ofSeconds(2))
			.untilAsserted(() -> assertThat(acquire(policy, "fresh").remaining()).isZero());
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void everyWindowMustAllow(RateLimitAlgorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, RateLimitWindow.of(10, Duration.ofHours(1)),
				RateLimitWindow.of(2, Duration.ofDays(1)));
		acquire(policy, "u");
		RateLimitDecision second = acquire(policy, "u");
		assertThat(second.remaining()).isZero();
		assertThat(second.window()).isEqualTo(policy.windows().get(1));
		RateLimitDecision refused = acquire(policy, "u");
		assertThat(refused.allowed()).isFalse();
		assertThat(refused.window().period()).isEqualTo(Duration.ofDays(1));
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void costTakesSeveralPermitsAndACostAboveTheLimitIsRefusedWithoutAsking(RateLimitAlgorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, RateLimitWindow.of(5, Duration.ofHours(1)));
		assertThat(this.limiter.tryAcquire(this.id, policy, List.of("u"), 3).remaining()).isEqualTo(2);
		assertThat(this.limiter.tryAcquire(this.id, policy, List.of("u"), 3).allowed()).isFalse();
		assertThat(this.limiter.tryAcquire(this.id, policy, List.of("u"), 2).allowed()).isTrue();
		CommandLog log = CommandLog.record(this.redis,
				() -> assertThat(this.limiter.tryAcquire(this.id, policy, List.of("v"), 6).allowed()).isFalse());
		assertThat(log.roundTrips()).isZero();
		assertThat(acquire(policy, "v").remaining()).isEqualTo(4);
	}

	@Test
	void oneDecisionOverThreeWindowsAndTwoIdentifiersIsOneScriptCallPerSlot() {
		RateLimitPolicy policy = policy(RateLimitAlgorithm.SLIDING_WINDOW,
				RateLimitWindow.of(10, Duration.ofSeconds(1)), RateLimitWindow.of(120, Duration.ofMinutes(1)),
				RateLimitWindow.of(240, Duration.ofHours(1)));
		acquire(policy, "ip:10.0.0.1", "user:42");
		CommandLog log = CommandLog.record(this.redis, () -> acquire(policy, "ip:10.0.0.1", "user:42"));
		long slots = List.of("ip:10.0.0.1", "user:42")
			.stream()
			.map((identifier) -> ClusterSlotHashUtil.calculateSlot("{" + identifier.replace(":", "%3A") + "}"))
			.distinct()
			.count();
		assertThat(log.roundTrips()).isEqualTo(this.redis.isCluster() ? slots : 1);
		assertThat(log.clientCommands()).allMatch((command) -> command.startsWith("\"evalsha\""));
		// TIME, then per identifier one GET and one SET of the string holding its windows
		assertThat(log.scriptCommands()).hasSize(this.redis.isCluster() ? (int) (3 * slots) : 5);
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void everyKeyGetsATtlInTheSameScript(RateLimitAlgorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, RateLimitWindow.of(10, Duration.ofMinutes(1)),
				RateLimitWindow.of(100, Duration.ofHours(1)));
		acquire(policy, "ttl");
		String key = PreparedLimit.of(this.id, policy, new RedisKeyspace("rl-test")).key("ttl");
		Long ttl = this.runner.template().getExpire(key, java.util.concurrent.TimeUnit.MILLISECONDS);
		assertThat(ttl).isPositive().isLessThanOrEqualTo(Duration.ofHours(2).toMillis());
		long size = switch (algorithm) {
			// one member per call
			case SLIDING_LOG -> this.runner.template().opsForZSet().zCard(key);
			// a header only, while every call is in the newest sub-windows: the number of
			// windows, two 4-byte periods, the time, then per window a 4-byte total, a
			// 2-byte count and a byte
			case SLIDING_WINDOW -> this.runner.template().opsForValue().size(key);
			// per window: four doubles
			case FIXED_WINDOW, TOKEN_BUCKET -> this.runner.template().opsForValue().size(key) / 32;
		};
		assertThat(size).isEqualTo(switch (algorithm) {
			case SLIDING_LOG -> 1L;
			case SLIDING_WINDOW -> 1L + 2 * 4 + 8 + 2 * (4 + 2 + 1);
			case FIXED_WINDOW, TOKEN_BUCKET -> 2L;
		});
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void sixteenThreadsGetExactlyTheLimit(RateLimitAlgorithm algorithm) throws Exception {
		RateLimitPolicy policy = policy(algorithm, RateLimitWindow.of(100, Duration.ofHours(1)));
		AtomicInteger allowed = new AtomicInteger();
		ExecutorService pool = Executors.newFixedThreadPool(16);
		try {
			List<Future<?>> futures = new java.util.ArrayList<>();
			for (int t = 0; t < 16; t++) {
				futures.add(pool.submit(() -> {
					for (int i = 0; i < 20; i++) {
						if (acquire(policy, "shared").allowed()) {
							allowed.incrementAndGet();
						}
					}
				}));
			}
			for (Future<?> future : futures) {
				future.get();
			}
		}
		finally {
			pool.shutdown();
		}
		assertThat(allowed.get()).isEqualTo(100);
	}

	@ParameterizedTest
	@EnumSource(RateLimitAlgorithm.class)
	void aRefusedCallSucceedsOnceItsRetryAfterHasPassedAndNotBefore(RateLimitAlgorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, RateLimitWindow.of(2, Duration.ofSeconds(1)));
		// the script loaded and the connection open: a loaded machine could otherwise
		// spread the three calls over more than the period
		acquire(policy, "warm-up");
		Refusal refusal = refusedThirdCall(policy, algorithm);
		RateLimitDecision refused = refusal.decision();
		assertThat(refused.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2));
		// one permit, none left: the first permit to come back is the one the call needs
		assertThat(refused.resetAfter()).isEqualTo(refused.retryAfter());
		long retryAt = refusal.answered() + refused.retryAfter().toNanos();
		// the answer took less than the margin to arrive, so this is still before the
		// moment Redis named
		long early = retryAt - Duration.ofMillis(150).toNanos();
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> System.nanoTime() > early);
		RateLimitDecision retried = acquire(policy, refusal.identifier());
		// judged on Redis' clock: a loaded machine may deliver the refusal, or send the
		// retry, late enough that the retry is no longer early
		Instant permitBack = refused.decidedAt().plus(refused.retryAfter());
		if (retried.allowed() && retried.decidedAt() != null) {
			// a loaded machine sent it late: the permit was back, and it took it
			assertThat(retried.decidedAt()).as("a retry allowed before Retry-After").isAfterOrEqualTo(permitBack);
			return;
		}
		// from the moment Redis named on, a call is allowed: every refusal until the
		// first call Redis allows was decided, on its clock, within 200 ms of it
		List<Instant> refusedAt = new ArrayList<>();
		if (retried.decidedAt() != null && !retried.decidedAt().isBefore(permitBack)) {
			refusedAt.add(retried.decidedAt());
		}
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> System.nanoTime() > retryAt);
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10)).until(() -> {
			RateLimitDecision decision = acquire(policy, refusal.identifier());
			if (!decision.allowed()) {
				refusedAt.add(decision.decidedAt());
			}
			return decision.allowed() && decision.decidedAt() != null;
		});
		assertThat(refusedAt).as("refusals after Retry-After (%s)", permitBack)
			.allSatisfy((at) -> assertThat(at).isBefore(permitBack.plusMillis(200)));
	}

	/**
	 * The third of three calls on a fresh identifier, refused. A loaded machine may
	 * spread the three over more than the period, or a fixed window's over one of its
	 * boundaries (whole seconds of Redis' clock, which is this machine's): then the third
	 * is allowed, which Redis' clock shows, and the three are made again on another
	 * identifier.
	 */
	private Refusal refusedThirdCall(RateLimitPolicy policy, RateLimitAlgorithm algorithm) {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		for (int attempt = 0;; attempt++) {
			if (algorithm == RateLimitAlgorithm.FIXED_WINDOW) {
				// a fixed window lets its limit through twice across a boundary: the
				// calls made early in one
				await().atMost(Duration.ofSeconds(30))
					.pollInterval(Duration.ofMillis(5))
					.until(() -> System.currentTimeMillis() % 1000 > 20 && System.currentTimeMillis() % 1000 < 400);
			}
			String identifier = "retry-" + attempt;
			RateLimitDecision first = acquire(policy, identifier);
			acquire(policy, identifier);
			RateLimitDecision third = acquire(policy, identifier);
			long answered = System.nanoTime();
			if (!third.allowed()) {
				return new Refusal(identifier, third, answered);
			}
			assertThat(withinOnePeriod(algorithm, first.decidedAt(), third.decidedAt()))
				.as("a third call allowed within the period: decided at %s and %s", first.decidedAt(),
						third.decidedAt())
				.isFalse();
			assertThat(System.nanoTime()).as("three calls within one period, in %d attempts", attempt + 1)
				.isLessThan(deadline);
		}
	}

	// whether two calls fell in one period of 1 s on Redis' clock (or of a fixed window)
	private static boolean withinOnePeriod(RateLimitAlgorithm algorithm, @Nullable Instant first,
			@Nullable Instant last) {
		if (first == null || last == null) {
			// one of them decided by the failure mode, not by Redis
			return false;
		}
		if (algorithm == RateLimitAlgorithm.FIXED_WINDOW) {
			return first.getEpochSecond() == last.getEpochSecond();
		}
		// a token bucket of 2 a second has a token back 500 ms after the first call; the
		// others count a call for a second at least
		Duration period = Duration.ofMillis((algorithm == RateLimitAlgorithm.TOKEN_BUCKET) ? 450 : 900);
		return Duration.between(first, last).compareTo(period) < 0;
	}

	private record Refusal(String identifier, RateLimitDecision decision, long answered) {

	}

	@Test
	void theSlidingWindowsResetFollowsTheOldestSubWindowThatStillHoldsCalls() {
		RateLimitPolicy policy = new RateLimitPolicy(RateLimitAlgorithm.SLIDING_WINDOW,
				List.of(RateLimitWindow.of(5, Duration.ofSeconds(1))), 10);
		long firstAt = System.nanoTime();
		// a call counts until one period after the end of its 100 ms sub-window
		RateLimitDecision first = acquire(policy, "reset");
		assertThat(first.resetAfter()).isBetween(Duration.ofMillis(1000), Duration.ofMillis(1100));
		waitUntil(firstAt + Duration.ofMillis(400).toNanos());
		RateLimitDecision second = acquire(policy, "reset");
		waitUntil(firstAt + Duration.ofMillis(1150).toNanos());
		RateLimitDecision third = acquire(policy, "reset");
		// the plan, on Redis' clock, which decided all three: a loaded machine may have
		// sent the calls too late for it
		long secondAfter = Duration.between(first.decidedAt(), second.decidedAt()).toMillis();
		long thirdAfter = Duration.between(first.decidedAt(), third.decidedAt()).toMillis();
		Assumptions.assumeTrue(secondAfter < 600 && thirdAfter >= 1100 && thirdAfter < 1400,
				() -> "calls decided " + secondAfter + " and " + thirdAfter + " ms after the first");
		assertThat(second.resetAfter()).as("still the first call's sub-window")
			.isLessThanOrEqualTo(Duration.ofMillis(1100 - secondAfter));
		assertThat(third.remaining()).as("the first call is forgotten").isEqualTo(3);
		long sinceSecond = thirdAfter - secondAfter;
		assertThat(third.resetAfter()).as("now the second call's sub-window")
			.isPositive()
			.isLessThanOrEqualTo(Duration.ofMillis(1100 - sinceSecond + 20));
	}

	private static void waitUntil(long nanos) {
		await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5)).until(() -> System.nanoTime() > nanos);
	}

	@Test
	void aLimitDefinedAtRunTimeKeepsItsCounters() {
		String name = "plan-" + this.id;
		this.limiter.define(name,
				policy(RateLimitAlgorithm.SLIDING_WINDOW, RateLimitWindow.of(5, Duration.ofHours(1))));
		for (int i = 0; i < 3; i++) {
			this.limiter.tryAcquire(name, "tenant");
		}
		this.limiter.define(name,
				policy(RateLimitAlgorithm.SLIDING_WINDOW, RateLimitWindow.of(10, Duration.ofHours(1))));
		assertThat(this.limiter.tryAcquire(name, "tenant").remaining()).isEqualTo(6);
		assertThat(this.limiter.policy(name)).get().extracting((p) -> p.windows().get(0).limit()).isEqualTo(10L);
	}

	@Test
	void anUnknownLimitIsAClearError() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.limiter.tryAcquire("nope", "u"))
			.withMessageContaining("'nope'")
			.withMessageContaining("redkit.rate-limit.limits");
	}

	@ParameterizedTest
	@ValueSource(strings = { "{", "}", "a:b", "{user}:1", "ключ", "😀", "a b\n" })
	void hostileIdentifiersNeitherBreakKeysNorShareCounters(String hostile) {
		RateLimitPolicy policy = policy(RateLimitAlgorithm.SLIDING_WINDOW, RateLimitWindow.of(1, Duration.ofHours(1)));
		assertThat(acquire(policy, hostile).allowed()).isTrue();
		assertThat(acquire(policy, hostile).allowed()).isFalse();
		assertThat(acquire(policy, hostile + "x").allowed()).isTrue();
		assertThat(acquire(policy, "x".repeat(10_000)).allowed()).isTrue();
	}

}
