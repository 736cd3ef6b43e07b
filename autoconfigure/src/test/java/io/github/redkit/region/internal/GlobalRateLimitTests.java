package io.github.redkit.region.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitReservation;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.CommandLog;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.ScannedKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A rate limit marked global on three real Redis servers as three regions, attacked by
 * several threads per region calling flat out: every region keeps the limit exactly over
 * its own view in every interval of one period; all regions together stay under the limit
 * plus what the others allow during the replication lag while connected, and under one
 * limit per region while partitioned, in every interval; calls of every region count
 * everywhere once shipped.
 */
class GlobalRateLimitTests {

	private static final Duration PERIOD = Duration.ofMillis(500);

	private static final int LIMIT = 20;

	@PrivateRedis(count = 3)
	private static List<RedisServer> servers;

	@PrivateRedis(server = "servers")
	private static List<LettuceConnectionFactory> factories;

	// static: the class's static helpers use it too
	private static ThreeRegions three;

	private final List<RegionReplicator> replicators = new ArrayList<>();

	private final Map<String, RateLimiter> regions = new LinkedHashMap<>();

	@BeforeAll
	static void viewTheRegions() {
		three = new ThreeRegions(servers, factories);
	}

	@BeforeEach
	void regions() {
		three.flushAll();
		for (String name : ThreeRegions.NAMES) {
			RedisRateLimiter limiter = new RedisRateLimiter(three.runner(name), ThreeRegions.KEYSPACE,
					Map.of("api", RateLimitPolicy.slidingWindow(RateLimitWindow.of(LIMIT, PERIOD)), "local",
							RateLimitPolicy.slidingWindow(RateLimitWindow.of(LIMIT, PERIOD))),
					new RateLimitSettings(LimitFailureMode.DENY, Duration.ofSeconds(2), Duration.ofSeconds(1)),
					RedkitMetrics.NONE, RedkitObservations.NONE, List.of(new GlobalRateLimitDecider(three.runner(name),
							new RegionOutbox(ThreeRegions.KEYSPACE, name, 1_000_000), Set.of("api"))));
			this.regions.put(name, limiter);
		}
		this.replicators.addAll(three.replicators(Duration.ofMillis(10)));
	}

	@AfterEach
	void stopReplicators() {
		this.replicators.forEach(RegionReplicator::stop);
	}

	@Test
	void callsOfEveryRegionCountEverywhereOnceShipped() {
		this.replicators.forEach(RegionReplicator::start);
		// a long period, so that nothing is forgotten while this test runs
		RateLimitPolicy hour = RateLimitPolicy.slidingWindow(RateLimitWindow.of(30, Duration.ofHours(1)));
		this.regions.values().forEach((limiter) -> limiter.define("api", hour));
		String user = "user {1}: x";
		for (RateLimiter limiter : this.regions.values()) {
			for (int i = 0; i < 10; i++) {
				assertThat(limiter.tryAcquire("api", user).allowed()).isTrue();
			}
		}
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(5))
			.untilAsserted(() -> this.regions.forEach((name,
					limiter) -> assertThat(limiter.tryAcquire("api", List.of(user), 1).allowed()).as(name).isFalse()));
		// a limit that is not global counts in its own region only
		assertThat(this.regions.get("us").tryAcquire("local", user).allowed()).isTrue();
		assertThat(this.regions.get("us").tryAcquire("api", "another user").allowed()).isTrue();
	}

	@Test
	void aSettledCallCountsWhatItReallyUsedInEveryRegion() {
		this.replicators.forEach(RegionReplicator::start);
		RateLimitPolicy hour = RateLimitPolicy.slidingWindow(RateLimitWindow.of(100, Duration.ofHours(1)));
		this.regions.values().forEach((limiter) -> limiter.define("api", hour));
		RateLimiter us = this.regions.get("us");
		RateLimiter eu = this.regions.get("eu");
		assertThat(us.reserve("api", List.of("tenant"), 30).settle(5)).isTrue();
		assertThat(eu.reserve("api", List.of("tenant"), 10).settle(40)).isTrue();
		RateLimitReservation unused = us.reserve("api", List.of("tenant"), 20);
		assertThat(unused.giveBackAsync().join()).isTrue();
		// 5 + 40 used, one permit per look: every region sees the same once shipped
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(20))
			.untilAsserted(() -> this.regions.forEach((name, limiter) -> {
				RateLimitReservation look = limiter.reserve("api", List.of("tenant"), 1);
				look.settle(0);
				assertThat(look.decision().remaining()).as(name).isEqualTo(100 - 45 - 1);
			}));
		// charges, give-backs and applied entries moved the view as they moved the
		// counters
		for (String region : ThreeRegions.NAMES) {
			assertViewsMatchCounters(region);
		}
	}

	@Test
	void connectedRegionsStayUnderTheLimitPlusWhatTheOthersAllowDuringTheLag() throws Exception {
		this.replicators.forEach(RegionReplicator::start);
		Map<String, List<Instant>> allowed = attack(Duration.ofMillis(1500));
		int worstRegion = assertEveryRegionKeepsTheLimit(allowed);
		List<Instant> all = merged(allowed);
		int worst = mostInOnePeriod(all);
		System.out.printf(
				"Global rate limit %d per %d ms, 3 regions x 3 threads flat out for 1.5 s, replication"
						+ " every 10 ms: at most %d calls of all regions in any %d ms (limit %d, overshoot %d);"
						+ " each region's own view at most %d%n",
				LIMIT, PERIOD.toMillis(), worst, PERIOD.toMillis(), LIMIT, worst - LIMIT, worstRegion);
		assertThat(worst).as("never more than each region's full limit").isLessThanOrEqualTo(3 * LIMIT);
	}

	@Test
	void partitionedRegionsEachAllowTheirFullViewAndNoMore() throws Exception {
		// the partition: nothing is shipped
		Map<String, List<Instant>> allowed = attack(Duration.ofSeconds(1));
		assertEveryRegionKeepsTheLimit(allowed);
		int worst = mostInOnePeriod(merged(allowed));
		System.out.printf("Global rate limit %d per %d ms, 3 regions partitioned: at most %d calls of all regions"
				+ " in any %d ms (bound: 3 x %d)%n", LIMIT, PERIOD.toMillis(), worst, PERIOD.toMillis(), LIMIT);
		assertThat(worst).isLessThanOrEqualTo(3 * LIMIT);
	}

	@Test
	void aGlobalDecisionIsOneRoundTripToTheLocalRedis() {
		RateLimiter eu = this.regions.get("eu");
		eu.tryAcquire("api", "warm");
		CommandLog decision = CommandLog.record(three.server("eu"), () -> eu.tryAcquire("api", "user-1"));
		assertThat(decision.roundTrips()).isOne();
		// this region's first call of the sub-window: TIME, HGETALL (the view), HINCRBY
		// and
		// PEXPIRE of the counter and of the view, INCR, XADD
		assertThat(decision.scriptCommands()).hasSizeLessThanOrEqualTo(8);
		System.out.println("Global rate limit cost: 1 round trip, " + decision.scriptCommands().size()
				+ " commands for one window of " + RateLimitPolicy.DEFAULT_SUB_WINDOWS
				+ " sub-windows (the first call of a sub-window)");
	}

	@Test
	void aGlobalDecisionReadsOneHashPerWindowAndWritesTheTtlsOncePerSubWindow() {
		this.replicators.forEach(RegionReplicator::start);
		// an hour of 10 sub-windows: the calls below fall in one, or two at a boundary
		RateLimitPolicy hour = RateLimitPolicy.slidingWindow(RateLimitWindow.of(1000, Duration.ofHours(1)));
		this.regions.values().forEach((limiter) -> limiter.define("api", hour));
		this.regions.values().forEach((limiter) -> limiter.define("local", hour));
		for (RateLimiter limiter : this.regions.values()) {
			assertThat(limiter.tryAcquire("api", "user").allowed()).isTrue();
		}
		RateLimiter eu = this.regions.get("eu");
		eu.tryAcquire("local", "user");
		// the others' calls reached eu: its view holds every region's
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(look(eu)).isEqualTo(1000 - 3 - 1));
		this.replicators.forEach(RegionReplicator::stop);
		RedisServer server = three.server("eu");
		CommandStats before = server.commandStats();
		int calls = 50;
		for (int i = 0; i < calls; i++) {
			assertThat(eu.tryAcquire("api", "user").allowed()).isTrue();
		}
		CommandStats taken = server.commandStats().since(before);
		assertThat(taken.asMap()).as(taken.toString())
			.containsEntry("evalsha", (long) calls)
			.containsEntry("time", (long) calls)
			.containsEntry("hgetall", (long) calls)
			.containsEntry("hincrby", 2L * calls)
			.containsEntry("incr", (long) calls)
			.containsEntry("xadd", (long) calls);
		// a TTL for the counter and the view on the first call of a sub-window only
		assertThat(taken.calls("pexpire")).as(taken.toString()).isLessThanOrEqualTo(4);
		assertThat(taken.total() - calls).as(taken.toString()).isLessThanOrEqualTo(6L * calls + 4);
		assertThat(look(eu)).isEqualTo(1000 - 3 - calls - 1);
	}

	@Test
	void aRegionWhoseRedisRestartedEmptyCountsEveryRegionsCallsAgainOnceRecovered() {
		this.replicators.forEach(RegionReplicator::start);
		RateLimitPolicy hour = RateLimitPolicy.slidingWindow(RateLimitWindow.of(30, Duration.ofHours(1)));
		this.regions.values().forEach((limiter) -> limiter.define("api", hour));
		// a first call loads the scripts: on a loaded machine it may outlast the timeout
		this.regions.values()
			.forEach((limiter) -> await().atMost(Duration.ofSeconds(30))
				.ignoreExceptions()
				.until(() -> limiter.tryAcquire("api", "warm-up").allowed()));
		for (RateLimiter limiter : this.regions.values()) {
			for (int i = 0; i < 5; i++) {
				assertThat(limiter.tryAcquire("api", "user").allowed()).isTrue();
			}
		}
		awaitEverywhere(30 - 15 - 1);
		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThat(this.replicators).allMatch((r) -> r.lagEntries() == 0));
		this.replicators.forEach(RegionReplicator::stop);
		// eu's Redis restarts without persistence, then counts 2 calls on the empty Redis
		// before its replicators run again
		RedisServer eu = three.server("eu");
		eu.stop();
		eu.start();
		AtomicInteger counted = new AtomicInteger();
		await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
			if (this.regions.get("eu").tryAcquire("api", "user").allowed()) {
				counted.incrementAndGet();
			}
			return counted.get() == 2;
		});
		this.replicators.forEach(RegionReplicator::start);
		// the view decisions read is rebuilt with the counters: eu's own 5 come back from
		// the peers, added to the 2 counted since, and the peers' 10 are applied again;
		// every region converges to one view that holds the 17 calls exactly (22 before:
		// the test's replicators recovered from one peer each, so eu recovered twice)
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> {
			Set<Long> seen = new HashSet<>();
			this.regions.values().forEach((limiter) -> seen.add(look(limiter)));
			assertThat(seen).hasSize(1);
			assertThat(seen.iterator().next()).as(GlobalRateLimitTests::hashesEverywhere).isEqualTo(30 - 17 - 1);
		});
		// what decisions read, the view, is what the replicated counters hold, in every
		// region
		for (String region : ThreeRegions.NAMES) {
			assertViewsMatchCounters(region);
		}
	}

	/** Every hash of every region's Redis, to show where a count went wrong. */
	private static String hashesEverywhere() {
		StringBuilder hashes = new StringBuilder();
		for (String region : ThreeRegions.NAMES) {
			StringRedisTemplate template = three.runner(region).template();
			for (String key : ScannedKeys.matching(template, "*")) {
				if ("hash".equals(template.type(key).code())) {
					hashes.append(region)
						.append(' ')
						.append(key)
						.append(' ')
						.append(template.opsForHash().entries(key))
						.append('\n');
				}
			}
		}
		return hashes.toString();
	}

	/**
	 * Every view field of a region's Redis equals its sub-window counter's slots summed.
	 */
	private static void assertViewsMatchCounters(String region) {
		StringRedisTemplate template = three.runner(region).template();
		int views = 0;
		for (String view : ScannedKeys.matching(template, "*:window:rl.*")) {
			String counters = view.replace(":window:rl.", ":counter:rl.");
			for (Map.Entry<Object, Object> field : template.opsForHash().entries(view).entrySet()) {
				long sum = 0;
				for (Map.Entry<Object, Object> slot : template.opsForHash()
					.entries(counters + "." + field.getKey())
					.entrySet()) {
					long value = Long.parseLong(slot.getValue().toString());
					sum += slot.getKey().toString().startsWith("n:") ? -value : value;
				}
				assertThat(Long.parseLong(field.getValue().toString())).as(region + " " + view + " " + field.getKey())
					.isEqualTo(sum);
				views++;
			}
		}
		assertThat(views).as(region).isPositive();
	}

	private void awaitEverywhere(long remaining) {
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(20))
			.untilAsserted(() -> this.regions
				.forEach((name, limiter) -> assertThat(look(limiter)).as(name).isEqualTo(remaining)));
	}

	/** What is left of the "api" limit for "user", a permit taken and given back. */
	private static long look(RateLimiter limiter) {
		RateLimitReservation look = limiter.reserve("api", List.of("user"), 1);
		look.settle(0);
		return look.decision().remaining();
	}

	/**
	 * Three threads per region call flat out from a random phase. Nine spinning clients
	 * are what the class costs: a few periods (each region's limit reached in every one
	 * of them, every interval of one period judged) prove what more would.
	 * @return the Redis time of every allowed call, by region
	 */
	private Map<String, List<Instant>> attack(Duration duration) throws Exception {
		Map<String, List<Instant>> allowed = new LinkedHashMap<>();
		ExecutorService pool = Executors.newFixedThreadPool(9);
		try {
			List<Future<?>> done = new ArrayList<>();
			long end = System.nanoTime() + duration.toNanos();
			for (Map.Entry<String, RateLimiter> region : this.regions.entrySet()) {
				List<Instant> times = Collections.synchronizedList(new ArrayList<>());
				allowed.put(region.getKey(), times);
				for (int thread = 0; thread < 3; thread++) {
					done.add(pool.submit(() -> {
						long start = System.nanoTime() + ThreadLocalRandom.current().nextLong(PERIOD.toNanos());
						while (System.nanoTime() < start) {
							Thread.onSpinWait();
						}
						while (System.nanoTime() < end) {
							RateLimitDecision decision = region.getValue().tryAcquire("api", "shared user");
							if (decision.allowed()) {
								times.add(decision.decidedAt());
							}
						}
					}));
				}
			}
			for (Future<?> future : done) {
				future.get();
			}
		}
		finally {
			pool.shutdown();
		}
		return allowed;
	}

	private static int assertEveryRegionKeepsTheLimit(Map<String, List<Instant>> allowed) {
		int worst = 0;
		for (Map.Entry<String, List<Instant>> region : allowed.entrySet()) {
			int most = mostInOnePeriod(region.getValue());
			assertThat(most).as("%s's own calls in any %d ms", region.getKey(), PERIOD.toMillis())
				.isLessThanOrEqualTo(LIMIT);
			worst = Math.max(worst, most);
		}
		return worst;
	}

	private static List<Instant> merged(Map<String, List<Instant>> allowed) {
		List<Instant> all = new ArrayList<>();
		allowed.values().forEach(all::addAll);
		return all;
	}

	/** The most calls in any interval of one period: every interval, not a chosen one. */
	private static int mostInOnePeriod(List<Instant> times) {
		List<Instant> sorted = new ArrayList<>(times);
		Collections.sort(sorted);
		int most = 0;
		int first = 0;
		for (int last = 0; last < sorted.size(); last++) {
			while (!sorted.get(first).plus(PERIOD).isAfter(sorted.get(last))) {
				first++;
			}
			most = Math.max(most, last - first + 1);
		}
		return most;
	}

}
