package io.github.redkit.region;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.core.MicrometerRedkitMetrics;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedisScriptRunner;
import io.github.redkit.region.RegionalBudgets.RegionalSpend;
import io.github.redkit.test.CommandLog;
import io.github.redkit.test.RedisServer;
import io.github.redkit.test.RedisServers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Three real Redis servers as three regions sharing budgets: concurrent spends and
 * refunds in every region converge to exactly the initial amount minus everything
 * applied; while the regions cannot see each other each spends what it sees (the
 * partition bound), and the overshoot of regions spending flat out while replication runs
 * is measured; operation ids are idempotent within a region.
 */
class RegionalBudgetsTests {

	private static final Duration DRAIN = Duration.ofSeconds(30);

	private static final List<String> NAMES = List.of("eu", "us", "ap");

	private static final List<RedisServer> servers = new ArrayList<>();

	private static final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<RegionReplicator> replicators = new ArrayList<>();

	private final Map<String, RegionalBudgets> regions = new LinkedHashMap<>();

	@BeforeAll
	static void startRegions() {
		for (int i = 0; i < NAMES.size(); i++) {
			RedisServer server = RedisServers.startStandalone();
			servers.add(server);
			factories.add(server.createConnectionFactory());
		}
	}

	@AfterAll
	static void stopRegions() {
		factories.forEach(LettuceConnectionFactory::destroy);
		servers.forEach(RedisServer::close);
	}

	@BeforeEach
	void regions() {
		servers.forEach(RedisServer::flushAll);
		for (int i = 0; i < NAMES.size(); i++) {
			this.regions.put(NAMES.get(i), new RedisRegionalBudgets(runner(i), new RedisKeyspace("redkit"),
					NAMES.get(i), 1_000_000, Duration.ofHours(1), Duration.ofSeconds(2)));
			for (int j = 0; j < NAMES.size(); j++) {
				if (i != j) {
					this.replicators.add(new RegionReplicator(NAMES.get(i), NAMES.get(j), runner(i), runner(j),
							new RedisKeyspace("redkit"), 200, Duration.ofMillis(10), Duration.ofMillis(500),
							new MicrometerRedkitMetrics(SimpleMeterRegistry::new)));
				}
			}
		}
	}

	@AfterEach
	void stopReplicators() {
		this.replicators.forEach(RegionReplicator::stop);
	}

	@Test
	void concurrentSpendsAndRefundsInAllRegionsConvergeToExactlyWhatWasApplied() throws Exception {
		this.replicators.forEach(RegionReplicator::start);
		long initial = 1_000_000;
		assertThat(this.regions.get("eu").create("campaign 42", initial)).isTrue();
		awaitEverywhere("campaign 42", initial);
		AtomicLong applied = new AtomicLong();
		ExecutorService pool = Executors.newFixedThreadPool(9);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (RegionalBudgets budgets : this.regions.values()) {
				for (int thread = 0; thread < 3; thread++) {
					done.add(pool.submit(() -> {
						ThreadLocalRandom random = ThreadLocalRandom.current();
						for (int i = 0; i < 200; i++) {
							long amount = random.nextLong(1, 11);
							String id = UUID.randomUUID().toString();
							if (random.nextInt(5) == 0) {
								budgets.refund("campaign 42", amount, id);
								applied.addAndGet(-amount);
								// a retry of the same operation changes nothing
								budgets.refund("campaign 42", amount, id);
							}
							else if (budgets.spend("campaign 42", amount, id).spent()) {
								applied.addAndGet(amount);
								assertThat(budgets.spend("campaign 42", amount, id).replayed()).isTrue();
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
		awaitEverywhere("campaign 42", initial - applied.get());
	}

	@Test
	void whilePartitionedEachRegionSpendsWhatItSeesAndAfterwardsAllSeeTheOverspend() {
		this.replicators.forEach(RegionReplicator::start);
		this.regions.get("eu").create("launch", 1000);
		awaitEverywhere("launch", 1000);
		// the partition: nothing is shipped
		this.replicators.forEach(RegionReplicator::stop);
		long spent = 0;
		for (RegionalBudgets budgets : this.regions.values()) {
			while (budgets.spend("launch", 10, UUID.randomUUID().toString()).spent()) {
				spent += 10;
			}
			assertThat(budgets.remaining("launch")).isZero();
		}
		// the bound of a full partition: every region spends the whole budget it sees
		assertThat(spent).isEqualTo(3000);
		List<RegionReplicator> healed = restartedReplicators();
		long resumed = System.nanoTime();
		awaitEverywhere("launch", 1000 - 3000);
		System.out.println("Regional budgets: 3 regions partitioned spent 3000 of 1000 (each its full view);"
				+ " converged to -2000 everywhere " + Duration.ofNanos(System.nanoTime() - resumed).toMillis()
				+ " ms after the partition healed (" + healed.size() + " replicators)");
	}

	@Test
	void regionsSpendingFlatOutOvershootByWhatTheOthersSpendDuringTheLag() throws Exception {
		this.replicators.forEach(RegionReplicator::start);
		long initial = 3000;
		this.regions.get("eu").create("flash sale", initial);
		awaitEverywhere("flash sale", initial);
		AtomicLong spent = new AtomicLong();
		ExecutorService pool = Executors.newFixedThreadPool(3);
		long started = System.nanoTime();
		try {
			List<Future<?>> done = new ArrayList<>();
			for (RegionalBudgets budgets : this.regions.values()) {
				done.add(pool.submit(() -> {
					while (budgets.spend("flash sale", 1, UUID.randomUUID().toString()).spent()) {
						spent.incrementAndGet();
					}
				}));
			}
			for (Future<?> future : done) {
				future.get();
			}
		}
		finally {
			pool.shutdown();
		}
		double seconds = (System.nanoTime() - started) / 1e9;
		long overshoot = spent.get() - initial;
		awaitEverywhere("flash sale", -overshoot);
		double rate = spent.get() / seconds;
		System.out.printf(
				"Regional budgets: 3 regions spending 1 at a time flat out (%.0f spends/s in all) on a budget"
						+ " of %d overshot by %d (%.1f%%), replication interval 10 ms%n",
				rate, initial, overshoot, 100.0 * overshoot / initial);
		assertThat(overshoot).as("never more than a full partition's bound").isBetween(0L, 2 * initial);
	}

	@Test
	void anOperationIdIsIdempotentWithinARegionAndARefusalIsNotRemembered() {
		RegionalBudgets eu = this.regions.get("eu");
		assertThat(eu.create("gift", 100)).isTrue();
		assertThat(eu.create("gift", 100)).as("a retried creation answers as the first").isTrue();
		assertThat(eu.remaining("gift")).isEqualTo(100);
		assertThat(eu.spend("gift", 60, "order-1")).isEqualTo(new RegionalSpend(true, 40, false));
		assertThat(eu.spend("gift", 60, "order-1")).isEqualTo(new RegionalSpend(true, 40, true));
		assertThat(eu.spend("gift", 60, "order-2")).isEqualTo(new RegionalSpend(false, 40, false));
		assertThat(eu.refund("gift", 30, "return-1")).isEqualTo(70);
		assertThat(eu.refund("gift", 30, "return-1")).isEqualTo(70);
		assertThat(eu.spend("gift", 60, "order-2")).isEqualTo(new RegionalSpend(true, 10, false));
		assertThat(eu.remaining("gift")).isEqualTo(10);
		// names and ids from requests never break a key, nor reach another budget
		assertThat(eu.create("gift:{x} y", 7)).isTrue();
		assertThat(eu.spend("gift:{x} y", 7, "order-1 }{:")).isEqualTo(new RegionalSpend(true, 0, false));
		assertThat(eu.remaining("gift")).isEqualTo(10);
		// another region that already sees the budget does not grant it again
		RegionReplicator euToUs = this.replicators.get(0);
		while (euToUs.shipOnce() > 0) {
			// ships everything eu did
		}
		assertThat(this.regions.get("us").remaining("gift")).isEqualTo(10);
		assertThat(this.regions.get("us").create("gift", 100)).isFalse();
		assertThat(this.regions.get("us").remaining("gift")).isEqualTo(10);
	}

	@Test
	void aSpendIsOneRoundTripToTheLocalRedis() {
		RegionalBudgets eu = this.regions.get("eu");
		// loads the script, so that no NOSCRIPT fallback is counted
		eu.create("warm", 1);
		eu.create("ads", 100);
		CommandLog spend = CommandLog.record(servers.get(0), () -> eu.spend("ads", 5, "order-1"));
		assertThat(spend.roundTrips()).isOne();
		// GET (operation), HGETALL (what this region sees), HINCRBY, HGET, INCR, XADD,
		// SET
		assertThat(spend.scriptCommands()).hasSize(7);
		CommandLog replay = CommandLog.record(servers.get(0), () -> eu.spend("ads", 5, "order-1"));
		assertThat(replay.roundTrips()).isOne();
		assertThat(replay.scriptCommands()).hasSize(1);
		System.out.println(
				"Regional budgets cost: spend " + spend.roundTrips() + " round trip, " + spend.scriptCommands().size()
						+ " commands in the script; a replayed id " + replay.scriptCommands().size());
	}

	private List<RegionReplicator> restartedReplicators() {
		List<RegionReplicator> restarted = new ArrayList<>();
		for (int i = 0; i < NAMES.size(); i++) {
			for (int j = 0; j < NAMES.size(); j++) {
				if (i != j) {
					RegionReplicator replicator = new RegionReplicator(NAMES.get(i), NAMES.get(j), runner(i), runner(j),
							new RedisKeyspace("redkit"), 200, Duration.ofMillis(10), Duration.ofMillis(500),
							new MicrometerRedkitMetrics(SimpleMeterRegistry::new));
					replicator.start();
					restarted.add(replicator);
				}
			}
		}
		this.replicators.addAll(restarted);
		return restarted;
	}

	private void awaitEverywhere(String budget, long expected) {
		await().atMost(DRAIN)
			.pollInterval(Duration.ofMillis(5))
			.untilAsserted(() -> this.regions
				.forEach((name, budgets) -> assertThat(budgets.remaining(budget)).as(name).isEqualTo(expected)));
	}

	private static RedisScriptRunner runner(int region) {
		return new RedisScriptRunner(factories.get(region));
	}

}
