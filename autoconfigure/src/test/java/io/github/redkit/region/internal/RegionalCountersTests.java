package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.region.RegionalCounters;
import io.github.redkit.testsupport.CommandLog;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;
import static org.awaitility.Awaitility.await;

/**
 * Three real Redis servers as three regions, each with its {@link RegionalCounters} and
 * one {@link RegionReplicator} per peer: concurrent increments converge to the exact sum,
 * a replicator killed between apply and advance double-counts nothing, a frozen peer
 * catches up, a trimmed outbox is flagged, hostile names stay apart.
 */
class RegionalCountersTests {

	private static final Duration DRAIN = Duration.ofSeconds(30);

	@PrivateRedis(count = 3)
	private static List<RedisServer> servers;

	@PrivateRedis(server = "servers")
	private static List<LettuceConnectionFactory> factories;

	private final List<RegionReplicator> replicators = new ArrayList<>();

	private final MeterRegistry meters = new SimpleMeterRegistry();

	// the origin region of each replicator
	private final Map<RegionReplicator, String> origins = new LinkedHashMap<>();

	private List<String> names = List.of();

	@BeforeEach
	void emptyRegions() {
		servers.forEach(RedisServer::flushAll);
	}

	@AfterEach
	void stopReplicators() {
		this.replicators.forEach(RegionReplicator::stop);
	}

	@Test
	void concurrentIncrementsInAllRegionsConvergeToTheExactSum() throws Exception {
		Map<String, RegionalCounters> regions = regions(List.of("eu", "us", "ap"), 1_000_000, 200);
		this.replicators.forEach(RegionReplicator::start);
		Map<String, AtomicLong> expected = new LinkedHashMap<>();
		List.of("clicks", "views", "balance").forEach((name) -> expected.put(name, new AtomicLong()));
		ExecutorService pool = Executors.newFixedThreadPool(9);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (RegionalCounters counters : regions.values()) {
				for (int thread = 0; thread < 3; thread++) {
					done.add(pool.submit(() -> {
						ThreadLocalRandom random = ThreadLocalRandom.current();
						for (int i = 0; i < 300; i++) {
							String name = List.copyOf(expected.keySet()).get(random.nextInt(3));
							long delta = random.nextLong(-5, 11);
							counters.increment(name, delta);
							expected.get(name).addAndGet(delta);
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
		awaitEverywhere(regions, expected);
		await().atMost(DRAIN).until(() -> this.replicators.stream().allMatch((r) -> r.lagEntries() == 0));
	}

	@Test
	void aReplicatorKilledAfterThePeerAppliedShipsAgainWithoutCountingTwice() {
		Map<String, RegionalCounters> regions = regions(List.of("eu", "us"), 1_000_000, 30);
		RegionReplicator euToUs = this.replicators.get(0);
		long sum = 0;
		for (int i = 1; i <= 100; i++) {
			sum += regions.get("eu").increment("orders", i);
		}
		long expected = regions.get("eu").get("orders");
		assertThat(expected).isEqualTo(5050);
		euToUs.setBeforeAdvance(() -> {
			throw new IllegalStateException("killed between apply and advance");
		});
		assertThatRuntimeException().isThrownBy(euToUs::shipOnce).withMessageContaining("killed");
		// the peer applied the batch of 30 (1 + ... + 30), the position did not move
		assertThat(regions.get("us").get("orders")).isEqualTo(465);
		assertThat(euToUs.lagEntries()).isEqualTo(100);
		RegionReplicator restarted = replicator("eu", "us", 30);
		while (restarted.shipOnce() > 0) {
			// ships the killed batch again, then the rest
		}
		assertThat(regions.get("us").get("orders")).isEqualTo(expected);
		assertThat(restarted.lagEntries()).isZero();
		assertThat(sum).isPositive();
	}

	@Test
	void aFrozenPeerCatchesUpAndTheConvergenceTimeIsMeasured() {
		Map<String, RegionalCounters> regions = regions(List.of("eu", "us", "ap"), 1_000_000, 200);
		this.replicators.forEach(RegionReplicator::start);
		RedisServer us = servers.get(1);
		long expected = regions.get("us").increment("hits", 1);
		us.pause();
		try {
			for (int i = 0; i < 2000; i++) {
				expected += 1;
				regions.get((i % 2 == 0) ? "eu" : "ap").increment("hits", 1);
			}
			RegionReplicator euToUs = this.replicators.stream()
				.filter((r) -> r.peer().equals("us") && this.origins.get(r).equals("eu"))
				.findFirst()
				.orElseThrow();
			await().atMost(DRAIN).until(() -> euToUs.lastError() != null && euToUs.lagEntries() > 0);
		}
		finally {
			us.resume();
		}
		long resumed = System.nanoTime();
		long total = expected;
		await().atMost(DRAIN)
			.pollInterval(Duration.ofMillis(5))
			.until(() -> regions.values().stream().allMatch((counters) -> counters.get("hits") == total));
		Duration convergence = Duration.ofNanos(System.nanoTime() - resumed);
		System.out.println("Regional counters: 3 regions, 2000 increments while 'us' was frozen (SIGSTOP),"
				+ " converged " + convergence.toMillis() + " ms after it resumed");
	}

	@Test
	void aTrimmedOutboxIsFlaggedAndThePeerReseeded() {
		Map<String, RegionalCounters> regions = regions(List.of("eu", "us"), 10, 200);
		RegionReplicator euToUs = this.replicators.get(0);
		regions.get("eu").increment("early", 7);
		regions.get("eu").increment("early", -2);
		for (int i = 0; i < 1000; i++) {
			regions.get("eu").increment("late", 1);
		}
		try (RespClient eu = servers.get(0).client(servers.get(0).port())) {
			assertThat((Long) eu.call("XLEN", new RegionKeys(new RedisKeyspace("redkit")).outbox()))
				.as("the outbox stays near its bound (MAXLEN ~)")
				.isLessThan(300);
		}
		assertThat(euToUs.shipOnce()).isPositive();
		assertThat(this.meters.get("redkit.regions.outbox.trimmed").tag("peer", "us").counter().count()).isOne();
		assertThat(this.meters.get("redkit.regions.replication.reseeds").tag("peer", "us").counter().count()).isOne();
		// 'early' was only in trimmed entries: the re-seed brought it
		assertThat(regions.get("us").get("early")).isEqualTo(5);
		while (euToUs.shipOnce() > 0) {
			// drains what is left
		}
		assertThat(regions.get("us").get("late")).isEqualTo(1000);
		assertThat(euToUs.isReseedRequired()).isFalse();
		assertThat(this.meters.get("redkit.regions.replication.reseed.required").tag("peer", "us").gauge().value())
			.isZero();
		assertThat(this.meters.get("redkit.regions.outbox.trimmed").tag("peer", "us").counter().count())
			.as("one gap, flagged once")
			.isOne();
	}

	@Test
	void aPeerRestartedEmptyIsReseeded() {
		Map<String, RegionalCounters> regions = regions(List.of("eu", "us"), 1_000_000, 200);
		RegionReplicator euToUs = this.replicators.get(0);
		regions.get("eu").increment("before", 40);
		regions.get("eu").increment("before", -1);
		euToUs.shipOnce();
		assertThat(regions.get("us").get("before")).isEqualTo(39);
		RedisServer us = servers.get(1);
		us.stop();
		us.start();
		regions.get("eu").increment("after", 2);
		await().atMost(DRAIN).ignoreExceptions().until(() -> euToUs.shipOnce() == 1);
		assertThat(regions.get("us").get("before")).isEqualTo(39);
		assertThat(regions.get("us").get("after")).isEqualTo(2);
		assertThat(this.meters.get("redkit.regions.replication.reseeds").tag("peer", "us").counter().count()).isOne();
	}

	@Test
	void aRegionWhoseRedisRestartedEmptyTakesItsSlotBackAndLosesNothingCountedSince() {
		Map<String, RegionalCounters> regions = regions(List.of("eu", "us", "ap"), 1_000_000, 200);
		// eu's replicators recover from every peer, as the application's do
		this.replicators.removeIf((replicator) -> this.origins.get(replicator).equals("eu"));
		Map<String, RedisScriptRunner> peers = new LinkedHashMap<>();
		peers.put("us", runner(1));
		peers.put("ap", runner(2));
		RegionReplicator.toPeers(shipping("eu", 200), peers).forEach((replicator) -> {
			this.origins.put(replicator, "eu");
			this.replicators.add(replicator);
		});
		this.replicators.forEach(RegionReplicator::start);
		regions.get("eu").increment("stock", 100);
		regions.get("eu").increment("stock", -30);
		regions.get("us").increment("stock", 10);
		regions.get("ap").increment("stock", 1);
		regions.get("eu").increment("eu only", 7);
		awaitEverywhere(regions, Map.of("stock", new AtomicLong(81), "eu only", new AtomicLong(7)));
		// eu's Redis restarts without persistence while its replicators are between
		// rounds
		this.replicators.forEach(RegionReplicator::stop);
		RedisServer eu = servers.get(0);
		eu.stop();
		eu.start();
		await().atMost(DRAIN).ignoreExceptions().until(() -> regions.get("eu").get("stock") == 0);
		// counted on the empty Redis before anything was recovered: it must not be lost
		assertThat(regions.get("eu").increment("stock", 5)).isEqualTo(5);
		regions.get("us").increment("stock", 2);
		this.replicators.forEach(RegionReplicator::start);
		awaitEverywhere(regions, Map.of("stock", new AtomicLong(88), "eu only", new AtomicLong(7)));
		assertThat(this.meters.get("redkit.regions.local.recoveries").counter().count()).isPositive();
	}

	@Test
	void anIncrementIsOneRoundTripAndABatchThreeWhateverItsSize() {
		Map<String, RegionalCounters> regions = regions(List.of("eu", "us"), 1_000_000, 200);
		RegionReplicator euToUs = this.replicators.get(0);
		RegionalCounters eu = regions.get("eu");
		// loads the scripts, so that no NOSCRIPT fallback is counted
		eu.increment("warm", 1);
		euToUs.shipOnce();
		CommandLog increment = CommandLog.record(servers.get(0), () -> eu.increment("orders", 3));
		assertThat(increment.roundTrips()).isOne();
		// with the GET and SET of its generated operation id (issue 43)
		assertThat(increment.scriptCommands()).hasSize(7);
		for (int i = 0; i < 199; i++) {
			eu.increment("orders", 1);
		}
		CommandLog[] peer = new CommandLog[1];
		CommandLog local = CommandLog.record(servers.get(0),
				() -> peer[0] = CommandLog.record(servers.get(1), () -> assertThat(euToUs.shipOnce()).isEqualTo(200)));
		assertThat(local.roundTrips()).isEqualTo(2);
		assertThat(peer[0].roundTrips()).isOne();
		System.out.println("Regional counters cost: increment " + increment.roundTrips() + " round trip, "
				+ increment.scriptCommands().size() + " commands in the script; a batch of 200 entries "
				+ local.roundTrips() + " local round trips + " + peer[0].roundTrips() + " on the peer, "
				+ peer[0].scriptCommands().size() + " commands in the peer's script");
	}

	@Test
	void oneInstanceOfARegionShipsToAPeerAndAnotherTakesOverWhenItStops() {
		Map<String, RegionalCounters> regions = regions(List.of("eu", "us"), 1_000_000, 200);
		// two instances of eu, each with its replicator to us
		RegionReplicator first = this.replicators.get(0);
		RegionReplicator second = replicator("eu", "us", 200);
		this.replicators.add(second);
		first.start();
		second.start();
		regions.get("eu").increment("visits", 5);
		await().atMost(DRAIN).until(() -> regions.get("us").get("visits") == 5);
		await().atMost(DRAIN).until(() -> first.isStandingBy() != second.isStandingBy());
		RegionReplicator shipping = first.isStandingBy() ? second : first;
		RegionReplicator standingBy = (shipping == first) ? second : first;
		assertThat(standingBy.state()).isEqualTo("standby");
		shipping.stop();
		regions.get("eu").increment("visits", 7);
		await().atMost(DRAIN).until(() -> regions.get("us").get("visits") == 12);
		assertThat(standingBy.isStandingBy()).as("took over").isFalse();
	}

	@Test
	void hostileRegionAndCounterNamesAreEscaped() {
		Map<String, RegionalCounters> regions = regions(List.of("eu:west {1}", "us east}"), 1_000_000, 200);
		this.replicators.forEach(RegionReplicator::start);
		regions.get("eu:west {1}").increment("a:{b} c", 5);
		regions.get("us east}").increment("a:{b} c", -2);
		regions.get("us east}").increment("a", 100);
		regions.get("eu:west {1}").increment("a:{b}", 1000);
		Map<String, AtomicLong> expected = Map.of("a:{b} c", new AtomicLong(3), "a", new AtomicLong(100), "a:{b}",
				new AtomicLong(1000));
		awaitEverywhere(regions, expected);
		try (RespClient client = servers.get(0).client(servers.get(0).port())) {
			// SCAN, not KEYS: this is how an operator would look, without blocking Redis
			List<String> keys = new ArrayList<>();
			String cursor = "0";
			do {
				List<?> page = (List<?>) client.call("SCAN", cursor, "COUNT", "1000");
				cursor = page.get(0).toString();
				((List<?>) page.get(1)).forEach((key) -> keys.add(key.toString()));
			}
			while (!"0".equals(cursor));
			assertThat(keys).allSatisfy((key) -> assertThat(key.toString()).doesNotContain(" ")
				.startsWith("redkit:region:{counters}:")
				.satisfies((k) -> assertThat(k.chars().filter((c) -> c == '{').count()).isOne()));
			assertThat(keys).contains("redkit:region:{counters}:counter:a%3A%7Bb%7D%20c",
					"redkit:region:{counters}:shipped:us%20east%7D");
		}
	}

	private Map<String, RegionalCounters> regions(List<String> names, long outboxMaxLength, int batchSize) {
		Map<String, RegionalCounters> regions = new LinkedHashMap<>();
		this.names = names;
		for (int i = 0; i < names.size(); i++) {
			regions.put(names.get(i), new RedisRegionalCounters(runner(i), new RedisKeyspace("redkit"), names.get(i),
					outboxMaxLength, Duration.ofSeconds(2)));
		}
		for (String from : names) {
			for (String to : names) {
				if (!from.equals(to)) {
					this.replicators.add(replicator(from, to, batchSize));
				}
			}
		}
		return regions;
	}

	/**
	 * A replicator; those of the first region record into {@link #meters}.
	 */
	private RegionReplicator replicator(String from, String to, int batchSize) {
		RegionReplicator replicator = RegionReplicator.toPeer(shipping(from, batchSize), to,
				runner(this.names.indexOf(to)));
		this.origins.put(replicator, from);
		return replicator;
	}

	private RegionShipping shipping(String from, int batchSize) {
		List<String> names = this.names;
		return new RegionShipping(from, 0, runner(names.indexOf(from)), new RedisKeyspace("redkit"),
				new RegionRounds(batchSize, Duration.ofMillis(10), Duration.ofMillis(500)), new MicrometerRedkitMetrics(
						() -> (from.equals(names.get(0)) ? this.meters : new SimpleMeterRegistry())));
	}

	private static RedisScriptRunner runner(int region) {
		return new RedisScriptRunner(factories.get(region));
	}

	private static void awaitEverywhere(Map<String, RegionalCounters> regions, Map<String, AtomicLong> expected) {
		AtomicBoolean converged = new AtomicBoolean();
		await().atMost(DRAIN).untilAsserted(() -> {
			for (RegionalCounters counters : regions.values()) {
				for (Map.Entry<String, AtomicLong> counter : expected.entrySet()) {
					assertThat(counters.get(counter.getKey())).as(counter.getKey()).isEqualTo(counter.getValue().get());
				}
			}
			converged.set(true);
		});
		assertThat(converged).isTrue();
	}

}
