package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redkit.budget.BudgetOverflowException;
import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.Reservation;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.region.RegionRecoveringException;
import io.github.redkit.region.RegionalBudgets;
import io.github.redkit.region.RegionalCounters;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.ScannedKeys;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * What regional budgets promise beyond convergence, on three real Redis servers: a region
 * whose Redis lost its data changes no budget until it holds its own slot again, retried
 * borrows and gifts move nothing twice, amounts stay exact, expired reservations are
 * settled in bounded steps, and counter names cannot reach a budget.
 */
class RegionalBudgetsSafetyTests {

	private static final Duration DRAIN = Duration.ofSeconds(30);

	@PrivateRedis(count = 3)
	private static List<RedisServer> servers;

	@PrivateRedis(server = "servers")
	private static List<LettuceConnectionFactory> factories;

	private final ThreeRegions three = new ThreeRegions(servers, factories);

	private final List<RegionReplicator> replicators = new ArrayList<>();

	private final Map<String, RegionalBudgets> regions = new LinkedHashMap<>();

	private final MeterRegistry meters = new SimpleMeterRegistry();

	@BeforeEach
	void regions() {
		three.flushAll();
		for (String name : ThreeRegions.NAMES) {
			this.regions.put(name,
					new RedisRegionalBudgets(three.runner(name), three.peers(name), ThreeRegions.KEYSPACE, name,
							new RegionalBudgetSettings(1_000_000, 1, Duration.ofHours(1), Duration.ofSeconds(2)),
							new MicrometerRedkitMetrics(() -> this.meters)));
		}
		this.replicators.addAll(three.replicators(Duration.ofMillis(10)));
		ThreeRegions.NAMES.forEach(this::recover);
	}

	@AfterEach
	void stopReplicators() {
		this.replicators.forEach(RegionReplicator::stop);
	}

	@Test
	void aRegionWhoseRedisLostItsDataChangesNoBudgetUntilItHoldsItsOwnSlot() {
		RegionalBudgets eu = this.regions.get("eu");
		this.replicators.forEach(RegionReplicator::start);
		assertThat(this.regions.get("us").allot("campaign", Map.of("eu", 200L, "us", 200L, "ap", 200L))).isTrue();
		await().atMost(DRAIN).until(() -> eu.share("campaign") == 200);
		assertThat(eu.spend("campaign", 100, "before").spent()).isTrue();
		awaitEverywhere("campaign", 500);
		this.replicators.forEach(RegionReplicator::stop);
		// eu's Redis restarts empty; us notices at its next shipment and re-seeds it with
		// its own slots, the 200 it gave eu included
		three.server("eu").flushAll();
		this.regions.get("us").spend("campaign", 1, "after");
		replicator("us", "eu").shipOnce();
		assertThat(eu.share("campaign")).as("re-seeded by us, eu's own spends not back yet").isEqualTo(200);
		for (Runnable change : List.<Runnable>of(() -> eu.spend("campaign", 200, "again"),
				() -> eu.reserve("campaign", 200, Duration.ofHours(1), "hold"),
				() -> eu.refund("campaign", 1, "refund"), () -> eu.give("campaign", "ap", 100, "gift"),
				() -> eu.borrow("campaign", 10, "borrow"), () -> eu.create("fresh", 10),
				() -> eu.allot("fresh-allotted", Map.of("eu", 10L)),
				() -> eu.commit(new Reservation("campaign", "hold", 200), 10),
				() -> eu.release(new Reservation("campaign", "hold", 200)))) {
			assertThatExceptionOfType(RegionRecoveringException.class).isThrownBy(change::run)
				.withMessageContaining("'eu'")
				.withMessageContaining("own slot");
		}
		assertThat(this.meters.get("redkit.regions.budgets.refused").tag("reason", "recovering").counter().count())
			.isEqualTo(9);
		recover("eu");
		assertThat(eu.share("campaign")).isEqualTo(100);
		assertThat(eu.spend("campaign", 200, "again").spent()).isFalse();
		assertThat(eu.spend("campaign", 100, "the rest").spent()).isTrue();
		this.replicators.clear();
		this.replicators.addAll(three.replicators(Duration.ofMillis(10)));
		this.replicators.forEach(RegionReplicator::start);
		awaitEverywhere("campaign", 399);
		assertThat(eu.share("campaign")).as("eu spent its 200, never more").isZero();
	}

	@Test
	void aRegionLendsOnlyOnceItHoldsItsOwnSlot() {
		RegionalBudgets ap = this.regions.get("ap");
		assertThat(this.regions.get("eu").allot("seats", Map.of("eu", 50L))).isTrue();
		three.runner("eu").template().delete(new RegionKeys(ThreeRegions.KEYSPACE).incarnation("eu"));
		assertThat(ap.borrow("seats", 10, "b-1")).isZero();
		recover("eu");
		assertThat(ap.borrow("seats", 10, "b-1")).as("a retry asks again a region that could not lend").isEqualTo(10);
	}

	@Test
	void aRetriedBorrowWithTheSameOperationIdBorrowsOnce() {
		RegionalBudgets ap = this.regions.get("ap");
		this.replicators.forEach(RegionReplicator::start);
		assertThat(this.regions.get("eu").allot("credits", Map.of("eu", 30L, "us", 30L))).isTrue();
		await().atMost(DRAIN).until(() -> ap.shares("credits").equals(Map.of("ap", 0L, "eu", 30L, "us", 30L)));
		this.replicators.forEach(RegionReplicator::stop);
		assertThat(ap.borrow("credits", 20, "b-1")).isEqualTo(20);
		// the donor asked first now has the smaller share: a retry must not ask the other
		assertThat(ap.borrow("credits", 20, "b-1")).as("a retry").isEqualTo(20);
		assertThat(ap.share("credits")).isEqualTo(20);
		assertThat(this.regions.get("eu").share("credits") + this.regions.get("us").share("credits")).isEqualTo(40);
		// a borrow cut short takes what is missing from the others on a retry, once
		assertThat(ap.borrow("credits", 50, "b-2")).isEqualTo(40);
		assertThat(ap.borrow("credits", 50, "b-2")).isEqualTo(40);
		assertThat(ap.share("credits")).isEqualTo(60);
	}

	@Test
	void aRetriedGiveMovesNothingTwice() {
		RegionalBudgets eu = this.regions.get("eu");
		RegionalBudgets us = this.regions.get("us");
		assertThat(eu.allot("credits", Map.of("eu", 30L))).isTrue();
		assertThat(eu.give("credits", "us", 20, "g-1")).isEqualTo(20);
		assertThat(eu.refund("credits", 100, "top-up")).isEqualTo(110);
		assertThat(eu.give("credits", "us", 20, "g-1")).as("a retry, whatever the share now").isEqualTo(20);
		assertThat(eu.share("credits")).isEqualTo(110);
		this.replicators.forEach(RegionReplicator::start);
		awaitEverywhere("credits", 130);
		assertThat(us.share("credits")).isEqualTo(20);
		assertThat(us.give("credits", "eu", 5, "g-1")).as("the same id from another region").isEqualTo(5);
	}

	@Test
	void amountsAboveTheLargestExactAmountAreRefused() {
		RegionalBudgets eu = this.regions.get("eu");
		long tooLarge = Budgets.MAX_AMOUNT + 2;
		for (Runnable change : List.<Runnable>of(() -> eu.create("huge", tooLarge),
				() -> eu.allot("huge", Map.of("eu", tooLarge)),
				() -> eu.allot("huge", Map.of("eu", Budgets.MAX_AMOUNT, "us", 1L)),
				() -> eu.spend("huge", tooLarge, "s"), () -> eu.refund("huge", tooLarge, "r"),
				() -> eu.reserve("huge", tooLarge, Duration.ofHours(1), "h"),
				() -> eu.give("huge", "us", tooLarge, "g"), () -> eu.borrow("huge", tooLarge, "b"))) {
			assertThatIllegalArgumentException().isThrownBy(change::run)
				.withMessageContaining("exceeds " + Budgets.MAX_AMOUNT);
		}
		assertThat(ScannedKeys.matching(three.runner("eu").template(),
				new RegionKeys(ThreeRegions.KEYSPACE).counterPattern()))
			.isEmpty();
		assertThat(eu.create("large", Budgets.MAX_AMOUNT - 10)).isTrue();
		assertThat(eu.spend("large", 5, "s").remaining()).isEqualTo(Budgets.MAX_AMOUNT - 15);
		assertThat(eu.refund("large", 2, "r-1")).isEqualTo(Budgets.MAX_AMOUNT - 13);
		// the region's slot holds everything it ever granted, and only grows
		assertThatExceptionOfType(BudgetOverflowException.class).isThrownBy(() -> eu.refund("large", 9, "r-2"))
			.withMessageContaining("'large'");
		assertThat(eu.refund("large", 8, "r-2")).isEqualTo(Budgets.MAX_AMOUNT - 5);
	}

	@Test
	void expiredReservationsComeBackAtMostAHundredPerChangeAndAnExpiredOneIsNotCommitted() {
		RegionalBudgets eu = this.regions.get("eu");
		assertThat(eu.allot("tickets", Map.of("eu", 1000L))).isTrue();
		// long enough to make them all before the first expires
		long expiredAt = now() + 3000;
		for (int i = 0; i < 250; i++) {
			eu.reserve("tickets", 2, Duration.ofMillis(3000), "r-" + i).orElseThrow();
		}
		Reservation last = eu.reserve("tickets", 100, Duration.ofMillis(3000), "last").orElseThrow();
		assertThat(now()).as("made before any expired").isLessThan(expiredAt);
		long allExpired = now() + 3000;
		await().atMost(DRAIN).pollInterval(Duration.ofMillis(50)).until(() -> now() > allExpired);
		assertThat(eu.share("tickets")).as("nothing settled by a read").isEqualTo(400);
		assertThat(eu.spend("tickets", 1, "s-1").remaining()).as("100 reservations back").isEqualTo(599);
		assertThat(eu.commit(last, 100).spent()).as("expired, though not settled yet").isFalse();
		assertThat(eu.share("tickets")).as("then 100 more, and the expired one committed").isEqualTo(899);
		assertThat(eu.spend("tickets", 1, "s-2").remaining()).isEqualTo(998);
		assertThat(eu.spend("tickets", 1, "s-3").remaining()).isEqualTo(997);
	}

	@Test
	void counterNamesCannotReachABudget() {
		RegionalCounters counters = new RedisRegionalCounters(three.runner("eu"), ThreeRegions.KEYSPACE, "eu", 1000,
				Duration.ofSeconds(2));
		RegionalBudgets eu = this.regions.get("eu");
		eu.create("c", 100);
		eu.allot("a", Map.of("eu", 100L));
		for (String name : List.of("budget:c", "allotted:a", "allotted-to:2:eu:a", "rl." + "A".repeat(43) + ".0.1")) {
			assertThatIllegalArgumentException().isThrownBy(() -> counters.increment(name, -50))
				.withMessageContaining("reserved");
		}
		assertThat(eu.remaining("c")).isEqualTo(100);
		assertThat(eu.share("a")).isEqualTo(100);
		assertThat(counters.increment("budget c", 1)).as("names near the reserved ones").isOne();
		assertThat(counters.increment("rl.signups", 1)).isOne();
	}

	private long now() {
		Long now = three.runner("eu")
			.template()
			.execute((RedisCallback<Long>) (redis) -> redis.serverCommands().time());
		return (now != null) ? now : 0;
	}

	private void recover(String region) {
		RegionRecovery.over(this.replicators.stream().filter((r) -> r.region().equals(region)).toList()).recover();
	}

	private RegionReplicator replicator(String region, String peer) {
		return this.replicators.stream()
			.filter((r) -> r.region().equals(region) && r.peer().equals(peer))
			.findFirst()
			.orElseThrow();
	}

	private void awaitEverywhere(String budget, long expected) {
		await().atMost(DRAIN)
			.pollInterval(Duration.ofMillis(5))
			.untilAsserted(() -> this.regions
				.forEach((name, budgets) -> assertThat(budgets.remaining(budget)).as(name).isEqualTo(expected)));
	}

}
