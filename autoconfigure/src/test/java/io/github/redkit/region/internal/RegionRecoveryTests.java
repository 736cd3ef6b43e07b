package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.region.RegionalCounters;
import io.github.redkit.testsupport.CommandLog;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;
import static org.awaitility.Awaitility.await;

/**
 * A region whose Redis lost its data, or came back with old data, takes its counters back
 * from every peer, once, in few round trips; a peer that must be re-seeded is re-seeded
 * even after a failed re-seed or a crash. Three real {@code redis-server}s as regions.
 */
@ExtendWith(OutputCaptureExtension.class)
class RegionRecoveryTests {

	private static final Duration DRAIN = Duration.ofSeconds(30);

	private static final RedisKeyspace KEYSPACE = ThreeRegions.KEYSPACE;

	@PrivateRedis(count = 3)
	private static List<RedisServer> servers;

	@PrivateRedis(server = "servers")
	private static List<LettuceConnectionFactory> factories;

	// static: the class's static helpers use it too
	private static ThreeRegions regions;

	private final List<RegionReplicator> replicators = new ArrayList<>();

	private final MeterRegistry meters = new SimpleMeterRegistry();

	@BeforeAll
	static void viewTheRegions() {
		regions = new ThreeRegions(servers, factories);
	}

	@BeforeEach
	void emptyRegions() {
		regions.flushAll();
	}

	@AfterEach
	void stopReplicators() {
		this.replicators.forEach(RegionReplicator::stop);
	}

	@Test
	void aRegionRestoredFromAnOlderSnapshotIsNoticedAndEveryRegionConvergesToTheExactSum() {
		Map<String, RegionalCounters> counters = counters();
		group("eu");
		group("us");
		group("ap");
		this.replicators.forEach(RegionReplicator::start);
		counters.get("eu").increment("clicks", 10);
		counters.get("us").increment("clicks", 100);
		awaitEverywhere(counters, "clicks", 110);
		RedisServer eu = regions.server("eu");
		try {
			try (RespClient client = eu.client(eu.port())) {
				client.call("SAVE");
			}
			// written after the snapshot, and shipped: the peers hold eu's slot at 15
			counters.get("eu").increment("clicks", 5);
			counters.get("eu").increment("later", 3);
			awaitEverywhere(counters, "clicks", 115);
			awaitEverywhere(counters, "later", 3);
			this.replicators.forEach(RegionReplicator::stop);
			// eu comes back on the older dump: its slot of 'clicks' is 10 again
			restart("eu");
			assertThat(counters.get("eu").get("clicks")).isEqualTo(110);
			// counted on the old data before anything noticed
			counters.get("eu").increment("clicks", 1);
			this.replicators.forEach(RegionReplicator::start);
			awaitEverywhere(counters, "clicks", 116);
			awaitEverywhere(counters, "later", 3);
			counters.get("eu").increment("clicks", 1);
			awaitEverywhere(counters, "clicks", 117);
		}
		finally {
			// leaves an empty dump, so that no other test restarts on this one
			regions.flushAll();
			try (RespClient client = eu.client(eu.port())) {
				client.call("SAVE");
			}
		}
	}

	@Test
	void aRegionRestoredFromASnapshotTakenAfterARecoveryTakesBackOnlyWhatItLostAgain() {
		Map<String, RegionalCounters> counters = counters();
		List<RegionReplicator> eu = group("eu");
		group("us");
		group("ap");
		RedisServer server = regions.server("eu");
		try {
			recoveredToSeven(counters, eu);
			save(server);
			// counted after the snapshot and shipped: the peers hold eu's slot at 8
			counters.get("eu").increment("clicks", 1);
			drain(eu);
			assertThat(slotEverywhere("clicks", "eu")).containsOnly(8L);
			// eu comes back on the dump (its slot at 7) and counts 1 before it recovers
			restart("eu");
			counters.get("eu").increment("clicks", 1);
			drain(eu);
			// 7 held, 1 lost (the peers' 8), 1 counted since: 9, not 8 + (8 - 2) = 14
			assertThat(slotEverywhere("clicks", "eu")).containsOnly(9L);
			assertThat(counters.get("eu").get("clicks")).isEqualTo(109);
		}
		finally {
			emptyDump(server);
		}
	}

	@Test
	void aRecoveredSlotWhoseLaterEntriesWereTrimmedIsNotTakenAsWhatTheRedisHeld(CapturedOutput output) {
		Map<String, RegionalCounters> counters = counters();
		List<RegionReplicator> eu = group("eu");
		group("us");
		group("ap");
		RedisServer server = regions.server("eu");
		RegionalCounters euTrimming = new RedisRegionalCounters(regions.runner("eu"), KEYSPACE, "eu", 10,
				Duration.ofSeconds(10));
		try {
			// its recovered-slot key says 7 at the outbox's last id then
			recoveredToSeven(counters, eu);
			euTrimming.increment("clicks", 10);
			drain(eu);
			assertThat(slotEverywhere("clicks", "eu")).containsOnly(17L);
			// other counters push the entries of 'clicks' out of the outbox (MAXLEN ~ 10)
			for (int i = 0; i < 250; i++) {
				euTrimming.increment("other" + i, 1);
			}
			drain(eu);
			assertThat(outboxCounters()).doesNotContain("clicks");
			// the dump holds 17 and the recovered slot 7, not the entry of the 10
			save(server);
			counters.get("eu").increment("clicks", 1);
			drain(eu);
			assertThat(slotEverywhere("clicks", "eu")).containsOnly(18L);
			restart("eu");
			counters.get("eu").increment("clicks", 1);
			drain(eu);
			// 17 held, 1 lost, 1 counted since: 19 is right, but nothing on eu's Redis
			// tells 17 from 18 any more (entries carry absolute values, and the last one
			// before the loss was trimmed), so what the peers hold is taken as held, with
			// a warning: 18, not 18 + (18 - 7) = 29 from the recovered slot
			assertThat(slotEverywhere("clicks", "eu")).containsOnly(18L);
			assertThat(output).contains("no longer holds what this Redis had of");
		}
		finally {
			emptyDump(server);
		}
	}

	/** The names of the counters in eu's outbox. */
	private static List<String> outboxCounters() {
		return regions.runner("eu")
			.template()
			.opsForStream()
			.range(new RegionKeys(KEYSPACE).outbox(), Range.unbounded())
			.stream()
			.map((record) -> String.valueOf(record.getValue().get("counter")))
			.toList();
	}

	@Test
	void aRegionRestoredFromASnapshotTakenAfterARecoveryBeforeItShippedAnythingCountsNothingTwice() {
		Map<String, RegionalCounters> counters = counters();
		List<RegionReplicator> eu = group("eu");
		group("us");
		group("ap");
		RedisServer server = regions.server("eu");
		try {
			recoveredToSeven(counters, eu);
			// the re-seed shipped 7, which moves no peer's high-water mark; nothing else
			// shipped since the recovery
			save(server);
			restart("eu");
			counters.get("eu").increment("clicks", 1);
			drain(eu);
			// 7 held, nothing lost, 1 counted since: 8, not 8 + (7 - 0) = 15
			assertThat(slotEverywhere("clicks", "eu")).containsOnly(8L);
			assertThat(counters.get("eu").get("clicks")).isEqualTo(108);
		}
		finally {
			emptyDump(server);
		}
	}

	@Test
	void aRegionRestoredFromASnapshotTakenBeforeItsRecoveryCountsWhatItCountedOnTheEmptyRedisOnce() {
		Map<String, RegionalCounters> counters = counters();
		List<RegionReplicator> eu = group("eu");
		group("us");
		group("ap");
		RedisServer server = regions.server("eu");
		try {
			counters.get("eu").increment("clicks", 5);
			counters.get("us").increment("clicks", 100);
			this.replicators.forEach(this::drainOne);
			emptyDump(server);
			restart("eu");
			// E1: counted on the empty Redis, and saved before the recovery ran
			counters.get("eu").increment("clicks", 2);
			save(server);
			drain(eu);
			// the recovery gave back 5, its re-seed shipped 7: the only way E1 left eu
			assertThat(slotEverywhere("clicks", "eu")).containsOnly(7L);
			// eu comes back on the dump (its slot at 2, E1 in its outbox) and counts 1
			restart("eu");
			counters.get("eu").increment("clicks", 1);
			drain(eu);
			// 5 lost and given back, E1's 2, 1 counted since: 8, not 2 + 1 + (7 - 0) = 10
			assertThat(slotEverywhere("clicks", "eu")).containsOnly(8L);
			assertThat(counters.get("eu").get("clicks")).isEqualTo(108);
		}
		finally {
			emptyDump(server);
		}
	}

	@Test
	void aCounterTheRecoveryDidNotMoveIsCountedOnceAfterAStepBack() {
		Map<String, RegionalCounters> counters = counters();
		List<RegionReplicator> eu = group("eu");
		group("us");
		group("ap");
		RedisServer server = regions.server("eu");
		try {
			counters.get("eu").increment("clicks", 5);
			counters.get("us").increment("other", 100);
			this.replicators.forEach(this::drainOne);
			emptyDump(server);
			restart("eu");
			// E1: eu's first calls on 'other', whose eu slot no peer holds: the recovery
			// gives nothing back there, and only its re-seed ships them
			counters.get("eu").increment("other", 2);
			drain(eu);
			assertThat(slotEverywhere("other", "eu")).containsOnly(2L);
			save(server);
			restart("eu");
			counters.get("eu").increment("other", 1);
			drain(eu);
			// 2 held, nothing lost, 1 counted since: 3, not 2 + 1 + (2 - 0) = 5
			assertThat(slotEverywhere("other", "eu")).containsOnly(3L);
			assertThat(slotEverywhere("clicks", "eu")).containsOnly(5L);
			assertThat(counters.get("eu").get("other")).isEqualTo(103);
		}
		finally {
			emptyDump(server);
		}
	}

	/**
	 * eu counts 5 and us 100, shipped; eu restarts empty, counts 2 and recovers: its slot
	 * is 7 everywhere.
	 */
	private void recoveredToSeven(Map<String, RegionalCounters> counters, List<RegionReplicator> eu) {
		counters.get("eu").increment("clicks", 5);
		counters.get("us").increment("clicks", 100);
		this.replicators.forEach(this::drainOne);
		assertThat(slotEverywhere("clicks", "eu")).containsOnly(5L);
		emptyDump(regions.server("eu"));
		restart("eu");
		counters.get("eu").increment("clicks", 2);
		drain(eu);
		assertThat(slotEverywhere("clicks", "eu")).containsOnly(7L);
		assertThat(counters.get("eu").get("clicks")).isEqualTo(107);
	}

	/**
	 * Ships everything a region's replicators have, its recovery and re-seeds included.
	 */
	private void drain(List<RegionReplicator> group) {
		group.forEach(this::drainOne);
	}

	private void drainOne(RegionReplicator replicator) {
		while (replicator.shipOnce() > 0) {
			// drains
		}
	}

	/** A region's own slot ({@code p}) of a counter on every region's Redis. */
	private static List<Long> slotEverywhere(String name, String region) {
		String key = new RegionKeys(KEYSPACE).counter(name);
		List<Long> slots = new ArrayList<>();
		for (String other : ThreeRegions.NAMES) {
			Object value = regions.runner(other).template().opsForHash().get(key, "p:" + region);
			slots.add((value != null) ? Long.parseLong(value.toString()) : 0L);
		}
		return slots;
	}

	private static void save(RedisServer server) {
		try (RespClient client = server.client(server.port())) {
			client.call("SAVE");
		}
	}

	/** Leaves an empty dump, so that the next restart is an empty one. */
	private static void emptyDump(RedisServer server) {
		server.flushAll();
		save(server);
	}

	@Test
	void recoveryWaitsUntilEveryPeerWasReadAndShowsItMeanwhile() {
		Map<String, RegionalCounters> counters = counters();
		List<RegionReplicator> eu = group("eu");
		group("us");
		group("ap");
		this.replicators.forEach(RegionReplicator::start);
		counters.get("eu").increment("stock", 40);
		counters.get("us").increment("stock", 2);
		awaitEverywhere(counters, "stock", 42);
		this.replicators.forEach(RegionReplicator::stop);
		restart("eu");
		regions.server("us").pause();
		regions.server("ap").pause();
		try {
			eu.forEach(RegionReplicator::start);
			await().atMost(DRAIN)
				.until(() -> eu.stream().allMatch((r) -> r.lastError() != null && "recovering".equals(r.state())));
			assertThat(eu.get(0).recoveryProgress()).containsEntry("peersRead", 0L);
		}
		finally {
			regions.server("us").resume();
			regions.server("ap").resume();
		}
		counters.get("eu").increment("stock", 1);
		this.replicators.forEach(RegionReplicator::start);
		awaitEverywhere(counters, "stock", 43);
		await().atMost(DRAIN).until(() -> eu.stream().noneMatch((r) -> "recovering".equals(r.state())));
		assertThat(eu.get(0).recoveryProgress()).containsEntry("peersRead", 2L).containsEntry("countersRead", 2L);
	}

	@Test
	void recoveryReadsAPeerInAFewRoundTripsAndEachShardOnce() {
		Map<String, RegionalCounters> counters = counters();
		List<RegionReplicator> eu = group("eu");
		for (int i = 0; i < 300; i++) {
			counters.get("eu").increment("c" + i, i + 1);
		}
		eu.forEach(RegionReplicator::shipOnce);
		eu.forEach(RegionReplicator::shipOnce);
		assertThat(counters.get("us").get("c299")).isEqualTo(300);
		restart("eu");
		RegionReplicator euToUs = eu.get(0);
		RegionReplicator euToAp = eu.get(1);
		CommandLog recovery = CommandLog.record(regions.server("us"), euToUs::shipOnce);
		// the pages of counters read, and the re-seed of 300 counters in batches of 200
		assertThat(recovery.roundTrips()).isLessThan(12);
		CommandLog second = CommandLog.record(regions.server("us"), euToAp::shipOnce);
		assertThat(second.roundTrips()).as("the shard is recovered once").isZero();
		assertThat(counters.get("eu").get("c299")).isEqualTo(300);
	}

	@Test
	void severalInstancesRecoveringAtOnceCountNothingTwice() throws Exception {
		Map<String, RegionalCounters> counters = counters();
		List<RegionReplicator> first = group("eu");
		for (int i = 0; i < 50; i++) {
			counters.get("eu").increment("c" + i, 10);
		}
		first.forEach(RegionReplicator::shipOnce);
		restart("eu");
		counters.get("eu").increment("c0", 1);
		List<RegionReplicator> second = group("eu");
		List<RegionReplicator> third = group("eu");
		CompletableFuture<?>[] all = new ArrayList<>(List.of(first, second, third)).stream()
			.flatMap(List::stream)
			.map((replicator) -> CompletableFuture.runAsync(replicator::shipOnce))
			.toArray(CompletableFuture[]::new);
		CompletableFuture.allOf(all).get();
		assertThat(counters.get("eu").get("c0")).isEqualTo(11);
		assertThat(counters.get("eu").get("c49")).isEqualTo(10);
		group("us").forEach(RegionReplicator::start);
		group("ap").forEach(RegionReplicator::start);
		first.forEach(RegionReplicator::start);
		awaitEverywhere(counters, "c0", 11);
		awaitEverywhere(counters, "c49", 10);
	}

	@Test
	void aRecoveryThatFailedHalfWayIsRetriedAndCountsNothingTwice() {
		Map<String, RegionalCounters> counters = counters();
		List<RegionReplicator> eu = group("eu", 20);
		for (int i = 0; i < 100; i++) {
			counters.get("eu").increment("c" + i, 10);
		}
		while (eu.get(0).shipOnce() > 0 | eu.get(1).shipOnce() > 0) {
			// drains
		}
		restart("eu");
		counters.get("eu").increment("c0", 1);
		int[] batches = { 0 };
		eu.get(0).recovery().setBeforeBatch(() -> {
			if (++batches[0] == 3) {
				throw new IllegalStateException("crashed half-way");
			}
		});
		assertThatRuntimeException().isThrownBy(eu.get(0)::shipOnce).withMessageContaining("half-way");
		List<RegionReplicator> restarted = group("eu", 20);
		restarted.get(0).shipOnce();
		for (int i = 0; i < 100; i++) {
			assertThat(counters.get("eu").get("c" + i)).as("c" + i).isEqualTo((i == 0) ? 11 : 10);
		}
	}

	@Test
	void aPeersOwnSlotIsReadOnlyWhenItHoldsItsIncarnation() {
		Map<String, RegionalCounters> counters = counters();
		List<RegionReplicator> eu = group("eu");
		List<RegionReplicator> us = group("us");
		List<RegionReplicator> ap = group("ap");
		this.replicators.forEach(RegionReplicator::start);
		counters.get("eu").increment("seats", 10);
		counters.get("us").increment("seats", 20);
		counters.get("ap").increment("seats", 30);
		awaitEverywhere(counters, "seats", 60);
		this.replicators.forEach(RegionReplicator::stop);
		// us restarts empty and counts 3 before it recovers; then eu restarts empty
		restart("us");
		counters.get("us").increment("seats", 3);
		restart("eu");
		// eu recovers first: us holds no incarnation, its slot (3) is taken from ap (20)
		eu.get(0).shipOnce();
		assertThat(counters.get("eu").get("seats")).isEqualTo(60);
		us.forEach(RegionReplicator::start);
		eu.forEach(RegionReplicator::start);
		ap.forEach(RegionReplicator::start);
		awaitEverywhere(counters, "seats", 63);
	}

	@Test
	void aFailedReseedIsRetried() {
		aPeerRestartedEmptyIsReseededAfterAFailure(false);
	}

	@Test
	void aReseedInterruptedByACrashIsDoneByTheNextInstance() {
		aPeerRestartedEmptyIsReseededAfterAFailure(true);
	}

	private void aPeerRestartedEmptyIsReseededAfterAFailure(boolean crash) {
		Map<String, RegionalCounters> counters = counters();
		RegionReplicator euToUs = group("eu").get(0);
		counters.get("eu").increment("quiet", 7);
		euToUs.shipOnce();
		restart("us");
		counters.get("eu").increment("busy", 1);
		euToUs.setBeforeReseed(() -> {
			throw new IllegalStateException("re-seed failed");
		});
		assertThatRuntimeException().isThrownBy(euToUs::shipOnce).withMessageContaining("re-seed failed");
		assertThat(euToUs.isReseedRequired()).isTrue();
		RegionReplicator next = euToUs;
		if (crash) {
			next = group("eu").get(0);
		}
		else {
			euToUs.setBeforeReseed(() -> {
			});
		}
		next.shipOnce();
		assertThat(counters.get("us").get("quiet")).isEqualTo(7);
		assertThat(counters.get("us").get("busy")).isEqualTo(1);
		assertThat(next.isReseedRequired()).isFalse();
	}

	@Test
	void theLastErrorAgeAndTheOutboxDepthAreMeasured() {
		Map<String, RegionalCounters> counters = counters();
		RegionReplicators eu = new RegionReplicators(group("eu"), List.of(),
				new MicrometerRedkitMetrics(() -> this.meters));
		counters.get("eu").increment("a", 1);
		counters.get("eu").increment("b", 1);
		RegionReplicator euToUs = eu.replicators().get(0);
		assertThat(lastErrorAge()).isEqualTo(-1);
		euToUs.shipOnce();
		assertThat(this.meters.get("redkit.regions.outbox.depth").gauge().value()).isEqualTo(2);
		regions.server("us").stop();
		try {
			counters.get("eu").increment("c", 1);
			euToUs.start();
			await().atMost(DRAIN).until(() -> lastErrorAge() >= 0);
			assertThat(this.meters.get("redkit.regions.outbox.depth").gauge().value()).isEqualTo(3);
		}
		finally {
			euToUs.stop();
			regions.server("us").start();
		}
	}

	@Test
	void theHealthAnswersWithinItsOwnTimeoutWhenThisRegionsRedisIsFrozen() {
		LettuceConnectionFactory factory = regions.server("eu").createConnectionFactory();
		RegionHealthIndicator health = new RegionHealthIndicator(new RegionReplicators(group("eu"), List.of()), factory,
				Duration.ofMillis(300));
		try {
			assertThat(health.health().getStatus()).isEqualTo(Status.UP);
			regions.server("eu").pause();
			try {
				long start = System.nanoTime();
				assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
				assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
				assertThat(Duration.ofNanos(System.nanoTime() - start))
					.as("two checks, each within its timeout and not the client's 5 s")
					.isLessThan(Duration.ofMillis(2000));
			}
			finally {
				regions.server("eu").resume();
			}
			await().atMost(DRAIN).until(() -> health.health().getStatus().equals(Status.UP));
		}
		finally {
			factory.destroy();
		}
	}

	private static void restart(String region) {
		regions.server(region).stop();
		regions.server(region).start();
		RegionalCounters counters = new RedisRegionalCounters(regions.runner(region), KEYSPACE, region, 1_000_000,
				Duration.ofMillis(500));
		await().atMost(DRAIN).ignoreExceptions().until(() -> counters.get("any") == 0);
	}

	private double lastErrorAge() {
		return this.meters.get("redkit.regions.replication.last.error.age").tag("peer", "us").gauge().value();
	}

	private Map<String, RegionalCounters> counters() {
		Map<String, RegionalCounters> counters = new LinkedHashMap<>();
		for (String name : ThreeRegions.NAMES) {
			counters.put(name,
					new RedisRegionalCounters(regions.runner(name), KEYSPACE, name, 1_000_000, Duration.ofSeconds(10)));
		}
		return counters;
	}

	/** One instance of a region: a replicator per peer, recovering from all of them. */
	private List<RegionReplicator> group(String region) {
		return group(region, 200);
	}

	private List<RegionReplicator> group(String region, int batchSize) {
		List<RegionReplicator> group = RegionReplicator.toPeers(
				new RegionShipping(region, 0, regions.runner(region), KEYSPACE,
						new RegionRounds(batchSize, Duration.ofMillis(10), Duration.ofMillis(500)),
						new MicrometerRedkitMetrics(
								() -> region.equals("eu") ? this.meters : new SimpleMeterRegistry())),
				regions.peers(region));
		this.replicators.addAll(group);
		return group;
	}

	private static void awaitEverywhere(Map<String, RegionalCounters> counters, String name, long expected) {
		await().atMost(DRAIN)
			.ignoreExceptions()
			.untilAsserted(() -> counters.forEach((region,
					regional) -> assertThat(regional.get(name)).as(name + " in " + region).isEqualTo(expected)));
	}

}
