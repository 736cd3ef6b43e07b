package io.github.redkit.region.internal;

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

import io.github.redkit.budget.Reservation;
import io.github.redkit.region.RegionalBudgets;
import io.github.redkit.region.RegionalBudgets.RegionalSpend;
import io.github.redkit.testsupport.CommandLog;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Three real Redis servers as three regions sharing budgets: concurrent spends and
 * refunds in every region converge to exactly the initial amount minus everything
 * applied; while the regions cannot see each other each spends what it sees (the
 * partition bound), and the overshoot of regions spending flat out while replication runs
 * is measured; operation ids are idempotent within a region.
 */
class RegionalBudgetsTests {

	private static final Duration DRAIN = Duration.ofSeconds(30);

	@PrivateRedis(count = 3)
	private static List<RedisServer> servers;

	@PrivateRedis(server = "servers")
	private static List<LettuceConnectionFactory> factories;

	private final ThreeRegions three = new ThreeRegions(servers, factories);

	private final List<RegionReplicator> replicators = new ArrayList<>();

	private final Map<String, RegionalBudgets> regions = new LinkedHashMap<>();

	@BeforeEach
	void regions() {
		three.flushAll();
		for (String name : ThreeRegions.NAMES) {
			this.regions.put(name, new RedisRegionalBudgets(three.runner(name), three.peers(name),
					ThreeRegions.KEYSPACE, name, 1_000_000, Duration.ofHours(1), Duration.ofSeconds(2)));
		}
		this.replicators.addAll(three.replicators(Duration.ofMillis(10)));
		// what every region's replicators do at their first round: a region lends only
		// once it holds its own slot
		ThreeRegions.NAMES.forEach(
				(name) -> RegionRecovery.over(this.replicators.stream().filter((r) -> r.region().equals(name)).toList())
					.recover());
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
		CommandLog spend = CommandLog.record(three.server("eu"), () -> eu.spend("ads", 5, "order-1"));
		assertThat(spend.roundTrips()).isOne();
		// GET (operation), GET (incarnation), INFO (whose run set it), HGETALL (what this
		// region sees), EXISTS (reservations to settle), HINCRBY, INCR, XADD, SET
		assertThat(spend.scriptCommands()).hasSize(9);
		CommandLog replay = CommandLog.record(three.server("eu"), () -> eu.spend("ads", 5, "order-1"));
		assertThat(replay.roundTrips()).isOne();
		assertThat(replay.scriptCommands()).hasSize(1);
		System.out.println(
				"Regional budgets cost: spend " + spend.roundTrips() + " round trip, " + spend.scriptCommands().size()
						+ " commands in the script; a replayed id " + replay.scriptCommands().size());
	}

	@Test
	void aSpendWithoutAnOperationIdRecordsAnIdOfItsOwnAndARetrySpendsAgain() {
		RegionalBudgets eu = this.regions.get("eu");
		eu.create("warm", 1);
		eu.spend("warm", 1);
		eu.create("ads", 100);
		CommandLog spend = CommandLog.record(three.server("eu"), () -> eu.spend("ads", 5));
		assertThat(spend.roundTrips()).isOne();
		// GET (the record of the id generated for this call, which a copy the client
		// sends
		// again after a reconnect finds: issue 43), GET (incarnation), INFO (whose run
		// set
		// it), HGETALL, EXISTS (reservations to settle), HINCRBY, INCR, XADD, SET (the
		// record, kept for the replay window only)
		assertThat(spend.scriptCommands()).hasSize(9);
		CommandStats before = three.server("eu").commandStats();
		for (int i = 0; i < 20; i++) {
			assertThat(eu.spend("ads", 1).spent()).isTrue();
		}
		CommandStats taken = three.server("eu").commandStats().since(before);
		// INFO commandstats counts what the script ran too (its INFO is left out by
		// since)
		assertThat(taken.asMap()).as(taken.toString())
			.containsEntry("evalsha", 20L)
			.containsEntry("get", 40L)
			.containsEntry("hgetall", 20L)
			.containsEntry("exists", 20L)
			.containsEntry("hincrby", 20L)
			.containsEntry("incr", 20L)
			.containsEntry("xadd", 20L)
			.containsEntry("set", 20L);
		// EVALSHA and eight commands; the script's INFO is left out with the snapshots'
		// own
		assertThat(taken.total()).as(taken.toString()).isEqualTo(20 * 9);
		// a retry by the caller without an id spends again: each call has its own id
		assertThat(eu.remaining("ads")).isEqualTo(75);
		assertThat(eu.spend("ads", 5, "order-1").spent()).isTrue();
		assertThat(eu.spend("ads", 5, "order-1").replayed()).isTrue();
		assertThat(eu.remaining("ads")).isEqualTo(70);
	}

	@Test
	void anAllottedBudgetNeverGoesBelowZeroWhilePartitionedAndConvergesAfterwards() throws Exception {
		this.replicators.forEach(RegionReplicator::start);
		assertThat(this.regions.get("eu").allot("quota", Map.of("eu", 400L, "us", 300L, "ap", 300L))).isTrue();
		awaitEverywhere("quota", 1000);
		await().atMost(DRAIN).untilAsserted(() -> assertThat(this.regions.get("ap").share("quota")).isEqualTo(300));
		// the partition: nothing is shipped, and 'ap' does not answer at all
		this.replicators.forEach(RegionReplicator::stop);
		RedisServer ap = three.server("ap");
		Map<String, RegionalBudgets> reachable = new LinkedHashMap<>();
		for (String name : List.of("eu", "us")) {
			// a short wait for the frozen region, so that asking it costs little
			reachable.put(name, new RedisRegionalBudgets(three.runner(name), three.peers(name), ThreeRegions.KEYSPACE,
					name, 1_000_000, Duration.ofHours(1), Duration.ofMillis(200)));
		}
		AtomicLong spent = new AtomicLong();
		ap.pause();
		try {
			spendFlatOut(reachable, "quota", spent);
		}
		finally {
			ap.resume();
		}
		long whileFrozen = spent.get();
		assertThat(whileFrozen).as("'ap' kept its share while out of reach").isLessThanOrEqualTo(700);
		// 'ap' spends what it owns (less what the asks queued while it was frozen took)
		spendFlatOut(Map.of("ap", this.regions.get("ap")), "quota", spent);
		assertThat(spent.get()).as("never more than the budget, in all regions together").isLessThanOrEqualTo(1000);
		List<RegionReplicator> healed = restartedReplicators();
		long resumed = System.nanoTime();
		awaitEverywhere("quota", 1000 - spent.get());
		System.out.println("Regional budgets: allotted 1000 as 400/300/300; partitioned with 'ap' frozen, the"
				+ " other regions spent " + whileFrozen + " borrowing from each other, 'ap' then "
				+ (spent.get() - whileFrozen)
				+ " (asks that timed out reached it when it resumed), never below zero; converged "
				+ Duration.ofNanos(System.nanoTime() - resumed).toMillis() + " ms after the partition healed ("
				+ healed.size() + " replicators)");
	}

	@Test
	void concurrentSpendsRefundsGiftsAndBorrowsOnAnAllottedBudgetConvergeExactly() throws Exception {
		this.replicators.forEach(RegionReplicator::start);
		long initial = 3000;
		this.regions.get("us").allot("credits", Map.of("eu", 1000L, "us", 1000L, "ap", 1000L));
		awaitEverywhere("credits", initial);
		AtomicLong applied = new AtomicLong();
		ExecutorService pool = Executors.newFixedThreadPool(9);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (Map.Entry<String, RegionalBudgets> region : this.regions.entrySet()) {
				RegionalBudgets budgets = region.getValue();
				for (int thread = 0; thread < 3; thread++) {
					done.add(pool.submit(() -> {
						ThreadLocalRandom random = ThreadLocalRandom.current();
						for (int i = 0; i < 150; i++) {
							long amount = random.nextLong(1, 21);
							String id = UUID.randomUUID().toString();
							switch (random.nextInt(6)) {
								case 0 -> {
									budgets.refund("credits", amount, id);
									applied.addAndGet(-amount);
								}
								case 1 -> {
									String to = ThreeRegions.NAMES.get(random.nextInt(3));
									if (!to.equals(region.getKey())) {
										long given = budgets.give("credits", to, amount, id);
										if (given > 0) {
											// a refusal is not remembered, a gift is
											assertThat(budgets.give("credits", to, amount, id)).isEqualTo(given);
										}
									}
								}
								case 2 -> budgets.borrow("credits", amount, id);
								default -> {
									if (budgets.spend("credits", amount, id).spent()) {
										applied.addAndGet(amount);
									}
								}
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
		assertThat(applied.get()).isLessThanOrEqualTo(initial);
		awaitEverywhere("credits", initial - applied.get());
		// every unit is in exactly one region's share
		await().atMost(DRAIN).untilAsserted(() -> {
			for (RegionalBudgets view : this.regions.values()) {
				long shares = 0;
				for (String region : ThreeRegions.NAMES) {
					shares += view.shares("credits").get(region);
				}
				assertThat(shares).isEqualTo(initial - applied.get());
			}
		});
	}

	@Test
	void giftsAndBorrowsAreIdempotentAndModesDoNotMix() {
		RegionalBudgets eu = this.regions.get("eu");
		RegionalBudgets us = this.regions.get("us");
		assertThat(eu.allot("seats {a}:b", Map.of("eu", 10L, "us", 5L))).isTrue();
		assertThat(eu.allot("seats {a}:b", Map.of("eu", 10L))).as("a retried creation answers as the first").isTrue();
		assertThat(eu.create("seats {a}:b", 10)).as("a shared budget of the same name").isFalse();
		assertThat(eu.share("seats {a}:b")).isEqualTo(10);
		assertThat(eu.remaining("seats {a}:b")).isEqualTo(15);
		assertThat(us.share("seats {a}:b")).as("not replicated yet").isZero();
		assertThat(us.spend("seats {a}:b", 1, "o-1")).isEqualTo(new RegionalSpend(false, 0, false));
		// borrowing asks eu's Redis directly and applies the gift here at once
		assertThat(us.borrow("seats {a}:b", 4, "b-1")).isEqualTo(4);
		assertThat(us.borrow("seats {a}:b", 4, "b-1")).as("a retry asks nobody twice").isEqualTo(4);
		// the gift brought eu's slot of what it gave us, the share of 5 included
		assertThat(us.share("seats {a}:b")).isEqualTo(9);
		assertThat(eu.share("seats {a}:b")).isEqualTo(6);
		assertThat(eu.give("seats {a}:b", "us", 100, "g-1")).as("at most the whole share").isEqualTo(6);
		assertThat(eu.give("seats {a}:b", "us", 100, "g-1")).isEqualTo(6);
		assertThat(eu.give("seats {a}:b", "us", 1, "g-2")).isZero();
		assertThat(eu.spend("seats {a}:b", 1, "o-1").spent()).isFalse();
		assertThat(us.spend("seats {a}:b", 4, "o-1")).isEqualTo(new RegionalSpend(true, 5, false));
		assertThat(eu.create("plain", 10)).isTrue();
		assertThat(eu.give("plain", "us", 5, "g-3")).as("a shared budget is not given").isZero();
		assertThat(us.borrow("plain", 5, "b-2")).isZero();
		assertThatIllegalArgumentException().isThrownBy(() -> eu.allot("x", Map.of("mars", 1L)))
			.withMessageContaining("mars");
		assertThatIllegalArgumentException().isThrownBy(() -> eu.give("x", "eu", 1, "g-4"))
			.withMessageContaining("not a peer");
		// everything given and spent reaches every region
		this.replicators.forEach(RegionReplicator::start);
		awaitEverywhere("seats {a}:b", 11);
		await().atMost(DRAIN).untilAsserted(() -> assertThat(us.share("seats {a}:b")).isEqualTo(11));
	}

	@ParameterizedTest(name = "allotted: {0}")
	@ValueSource(booleans = { false, true })
	void reservationsAreCommittedReleasedOrExpireInBothModes(boolean allotted) {
		RegionalBudgets eu = this.regions.get("eu");
		String name = "hold: " + allotted;
		assertThat(allotted ? eu.allot(name, Map.of("eu", 100L)) : eu.create(name, 100)).isTrue();
		Reservation held = eu.reserve(name, 60, Duration.ofHours(1), "r-1").orElseThrow();
		assertThat(eu.reserve(name, 60, Duration.ofHours(1), "r-1")).as("a retry").contains(held);
		assertThat(eu.reserve(name, 60, Duration.ofHours(1), "r-2")).isEmpty();
		assertThat(eu.share(name)).isEqualTo(40);
		assertThat(eu.commit(held, 25)).isEqualTo(new RegionalSpend(true, 75, false));
		assertThat(eu.commit(held, 25)).isEqualTo(new RegionalSpend(true, 75, true));
		eu.release(held);
		assertThat(eu.share(name)).as("a committed reservation is not released").isEqualTo(75);
		Reservation released = eu.reserve(name, 50, Duration.ofHours(1), "r-3").orElseThrow();
		eu.release(released);
		assertThat(eu.commit(released, 50).spent()).as("a released reservation is not committed").isFalse();
		assertThat(eu.share(name)).isEqualTo(75);
		assertThatIllegalArgumentException().isThrownBy(() -> eu.commit(released, 51));
		// an expired reservation gives its amount back at the next change of the budget
		eu.reserve(name, 75, Duration.ofMillis(50), "r-4").orElseThrow();
		assertThat(eu.share(name)).isZero();
		await().atMost(DRAIN).pollInterval(Duration.ofMillis(5)).until(() -> eu.spend(name, 75, "s-1").spent());
		this.replicators.forEach(RegionReplicator::start);
		awaitEverywhere(name, 0);
	}

	@Test
	void anAllottedSpendIsOneRoundTripToTheLocalRedis() {
		RegionalBudgets eu = this.regions.get("eu");
		eu.allot("warm", Map.of("eu", 1L));
		eu.allot("ads", Map.of("eu", 50L, "us", 50L));
		CommandLog spend = CommandLog.record(three.server("eu"), () -> eu.spend("ads", 5, "order-1"));
		assertThat(spend.roundTrips()).isOne();
		// GET (operation), GET (incarnation), INFO (whose run set it), HGETALL of the
		// shared,
		// the allotted and the incoming counter, EXISTS (reservations to settle),
		// HINCRBY,
		// INCR, XADD, SET
		assertThat(spend.scriptCommands()).hasSize(11);
		CommandLog borrow = CommandLog.record(three.server("eu"), () -> eu.borrow("ads", 5, "borrow-1"));
		System.out.println("Regional budgets cost: allotted spend " + spend.roundTrips() + " round trip, "
				+ spend.scriptCommands().size() + " commands; a borrow " + borrow.roundTrips()
				+ " round trips to the local Redis and one to each region asked");
	}

	private static void spendFlatOut(Map<String, RegionalBudgets> regions, String budget, AtomicLong spent)
			throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(regions.size() * 2);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (RegionalBudgets budgets : regions.values()) {
				for (int thread = 0; thread < 2; thread++) {
					done.add(pool.submit(() -> {
						while (true) {
							if (budgets.spend(budget, 1, UUID.randomUUID().toString()).spent()) {
								spent.incrementAndGet();
							}
							else if (budgets.borrow(budget, 100, UUID.randomUUID().toString()) == 0
									&& budgets.share(budget) == 0) {
								return null;
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
	}

	private List<RegionReplicator> restartedReplicators() {
		List<RegionReplicator> restarted = three.replicators(Duration.ofMillis(10));
		restarted.forEach(RegionReplicator::start);
		this.replicators.addAll(restarted);
		return restarted;
	}

	private void awaitEverywhere(String budget, long expected) {
		await().atMost(DRAIN)
			.pollInterval(Duration.ofMillis(5))
			.untilAsserted(() -> this.regions
				.forEach((name, budgets) -> assertThat(budgets.remaining(budget)).as(name).isEqualTo(expected)));
	}

}
