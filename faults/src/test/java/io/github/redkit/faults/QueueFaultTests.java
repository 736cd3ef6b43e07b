package io.github.redkit.faults;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;

import io.github.redkit.testsupport.RedisBinary;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Queues under random faults (the CI's seeds, on lists and on streams), and the checker
 * catching broken builds: judged on a recorded run in the CI, live in the soak (with seed
 * 2 on Valkey 9.1, and more seeds on streams).
 */
class QueueFaultTests {

	private static final long MS = 1_000_000;

	@ParameterizedTest
	@ValueSource(longs = { 2 })
	void everyMessageIsDeliveredOrDeadLetteredUnderTheSeedsFaults(long seed) {
		// without the cuts after a write: the test below runs the same seed with them
		Faults.check(QueueScenario::new, seed, Faults.CI_MILLIS, Set.of(Fault.CUT_AFTER_WRITE));
	}

	/**
	 * The same seed with its cuts after a write: a send sent again must enqueue once
	 * (issue 43).
	 */
	@ParameterizedTest
	@ValueSource(longs = { 2 })
	void everyMessageIsDeliveredOrDeadLetteredOnceUnderCutsAfterAWrite(long seed) {
		Faults.check(QueueScenario::new, seed);
	}

	/**
	 * The stream store under the seed's faults, its cuts after a write aimed at its take
	 * and its send: a take sent again must answer the entries the first read, not read
	 * new ones for nobody (issue 46).
	 */
	@ParameterizedTest
	@ValueSource(longs = { 2 })
	void theStreamStoreDeliversOrDeadLettersEveryMessageUnderCutsAfterAWriteAimedAtItsTake(long seed) {
		Faults.check(() -> QueueScenario.onStreamsAimedAt(QueueScenario.Breakage.NONE, QueueScenario.STREAM_TAKE,
				QueueScenario.STREAM_SEND), seed);
	}

	/**
	 * More seeds for the stream store, the cuts after a write aimed at each of its
	 * protected calls.
	 */
	@Tag("soak")
	@ParameterizedTest
	@ValueSource(longs = { 3, 5, 7 })
	void theStreamStoreDeliversOrDeadLettersEveryMessageUnderMoreSeeds(long seed) {
		Faults.check(() -> QueueScenario.onStreamsAimedAt(QueueScenario.Breakage.NONE, QueueScenario.STREAM_TAKE,
				QueueScenario.STREAM_SEND, QueueScenario.STREAM_REQUEUE), seed);
	}

	/**
	 * The soak's seeds of 2026-11-29 that found stream messages handled more times than
	 * {@code max-attempts} near a fault that rolls Redis' state back (issue 46): 10 s of
	 * clients, as the soak runs them (13 s with a failover).
	 */
	@Tag("soak")
	@ParameterizedTest
	@ValueSource(longs = { 6348772230022030827L, 2217587498509636779L, 2760048120098691259L, 4736740237695556170L })
	void theStreamStoreKeepsMaxAttemptsUnderTheSoaksRollbackSeeds(long seed) {
		Faults.check(QueueScenario::onStreams, seed, FaultSoakTests.SOAK_MILLIS);
	}

	/**
	 * The soak's seed of 2026-11-30 that found an acknowledged stream send, answered
	 * after the second restart on an older snapshot, neither handled nor dead-lettered
	 * (issue 46): 10 s of clients, as the soak runs them.
	 */
	@Tag("soak")
	@ParameterizedTest
	@ValueSource(longs = { 5713140215705645081L })
	void theStreamStoreKeepsASendAnsweredAfterARestartOnAnOlderSnapshot(long seed) {
		Faults.check(QueueScenario::onStreams, seed, FaultSoakTests.SOAK_MILLIS);
	}

	/**
	 * The stream take without its record is caught live under cuts after a write aimed at
	 * it: the first reply's entries burn a delivery with no consumer.
	 */
	@Tag("soak")
	@Test
	void theCheckerCatchesAStreamTakeWithoutItsRecord() {
		QueueScenario.Breakage breakage = QueueScenario.Breakage.STREAM_TAKE_WITHOUT_REPLAY;
		FaultRun.Result result = FaultRun.run(() -> QueueScenario.onStreamsAimedAt(breakage, breakage.script()),
				new Schedule(7, 3000,
						IntStream.range(0, 11)
							.mapToObj((i) -> new FaultEvent(250 + i * 250L, Fault.CUT_AFTER_WRITE, 0, i, 0))
							.toList()));
		assertThat(result.violations()).as("violations of %s", breakage)
			.anyMatch((violation) -> violation.contains("a delivery burnt by a lost take"));
	}

	@Tag("soak")
	@Test
	void everyMessageIsDeliveredOrDeadLetteredOnValkey9() {
		Optional<Path> valkey = RedisBinary.named("valkey-9");
		assumeTrue(valkey.isPresent(), "valkey-9 is not on this machine (.ci/servers fetches it)");
		// without the cuts after a write, as the CI's seed (issue 43)
		Faults.check(() -> new QueueScenario(valkey), 2, Faults.CI_MILLIS, Set.of(Fault.CUT_AFTER_WRITE));
	}

	// the builds without a script's dedupe run live in NemesisTests, under cuts aimed at
	// it
	@ParameterizedTest
	@EnumSource(value = QueueScenario.Breakage.class, names = { "DROP_SENDS", "FAKE_EXTENDS" })
	void theCheckerCatchesABrokenBuild(QueueScenario.Breakage breakage) {
		assertCaught(breakage, Recording.judge(recording(breakage), new QueueScenario(breakage)));
	}

	@Tag("soak")
	@ParameterizedTest
	@EnumSource(value = QueueScenario.Breakage.class, names = { "DROP_SENDS", "FAKE_EXTENDS" })
	void theCheckerCatchesABrokenBuildLive(QueueScenario.Breakage breakage) {
		assertCaught(breakage,
				Recording.run(recording(breakage), () -> new QueueScenario(breakage), new Schedule(7, 3000, List.of()))
					.violations());
	}

	private static String recording(QueueScenario.Breakage breakage) {
		return "queues-" + breakage;
	}

	private static void assertCaught(QueueScenario.Breakage breakage, List<String> violations) {
		String expected = (breakage == QueueScenario.Breakage.DROP_SENDS) ? "neither handled nor dead-lettered"
				: "taken again while its holder still had it";
		assertThat(violations).as("violations found in a build broken with %s", breakage)
			.anySatisfy((violation) -> assertThat(violation).contains(expected));
	}

	/**
	 * A build that drops a send while reporting success, shortly before Redis restarts
	 * empty (a recorded history): the restart loses what Redis held then, queued, in
	 * flight, delayed or dead-lettered, and a send that may have landed after that read,
	 * but not a send Redis never held.
	 */
	@Test
	void theCheckerCatchesASendDroppedBeforeARestartEmpty() {
		QueueScenario scenario = new QueueScenario();
		History history = new History();
		history.add(send(0, "p0-1", 1, 2));
		history.add(send(0, "p0-2", 3, 4));
		history.add(send(1, "p1-3", 9, 11));
		// handled before the restart: gone from Redis, rightly
		history.add(send(1, "p1-4", 0, 1));
		scenario.ledger().takes.add(new QueueLedger.Take("t1", "p1-4", 1, "i1/a", 2 * MS, 3 * MS));
		scenario.ledger().handlings.add(new QueueLedger.Handling("t1", "p1-4", "i1/a", 5 * MS, 6 * MS, true));
		history
			.fault(new FaultRecord(new FaultEvent(0, Fault.RESTART_EMPTY, 0, 0, 0), 10 * MS, 20 * MS, Set.of("p0-2")));
		List<String> violations = scenario.check(history);
		assertThat(violations).singleElement()
			.satisfies((violation) -> assertThat(violation).contains("neither handled nor dead-lettered")
				.contains("p0-1"));
	}

	/**
	 * A message taken again 100 ms into a 600 ms visibility, across a step of Redis'
	 * clock (a recorded history): the docs excuse a step forward, which moves the
	 * deadline closer, and not a step back, which moves it away.
	 */
	@ParameterizedTest
	@ValueSource(longs = { -2000, 2000 })
	void theCheckerExcusesASecondTakeAcrossAClockStepForwardOnly(long step) {
		QueueScenario scenario = new QueueScenario();
		History history = new History();
		history.add(send(0, "p0-1", -5, -4));
		QueueLedger ledger = scenario.ledger();
		ledger.takes.add(new QueueLedger.Take("t1", "p0-1", 1, "i0/a", 0, MS));
		ledger.takes.add(new QueueLedger.Take("t2", "p0-1", 2, "i1/b", 100 * MS, 101 * MS));
		ledger.handlings.add(new QueueLedger.Handling("t2", "p0-1", "i1/b", 102 * MS, 103 * MS, true));
		ledger.settlements.add(new QueueLedger.Settlement("t2", "ack", 104 * MS));
		history.fault(new FaultRecord(new FaultEvent(0, Fault.CLOCK_JUMP, 0, 0, step), 50 * MS, 51 * MS));
		List<String> violations = scenario.check(history);
		if (step > 0) {
			assertThat(violations).isEmpty();
		}
		else {
			assertThat(violations).singleElement()
				.satisfies((violation) -> assertThat(violation).contains("taken again while its holder still had it"));
		}
	}

	/**
	 * A stream take is known by its entry id and delivery count, which a rollback hands
	 * out again (a recorded history): delivery 3 taken after the snapshot, Redis
	 * restarted on it, delivery 3 taken again. Each handling is judged in the epoch of
	 * its own take, three in each; a fourth handled in the epoch after is caught, unless
	 * the holder of the take the rollback undid released its key there first (the
	 * delivery given back, as docs/queues.md says), not when the holder of the take after
	 * the rollback released it.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "three", "fourth", "fourth after a release of the undone take",
			"fourth after a release of the take after the rollback" })
	void theCheckerJudgesAStreamDeliveryTakenAgainAfterARollbackInItsOwnEpoch(String handlings) {
		QueueScenario scenario = QueueScenario.onStreams();
		History history = new History();
		history.add(send(0, "p0-1", 0, 1));
		QueueLedger ledger = scenario.ledger();
		streamTake(ledger, "p0-1", 1, "i0/a", 2, false);
		streamTake(ledger, "p0-1", 2, "i1/a", 10, false);
		// saved at 20 ms, written to until 50 ms, restarted on the snapshot by 80 ms
		history.fault(new FaultRecord(new FaultEvent(0, Fault.RESTART_FROM_SNAPSHOT, 30, 0, 0), 20 * MS, 80 * MS));
		String undone = streamTake(ledger, "p0-1", 3, "i2/a", 25, true);
		streamTake(ledger, "p0-1", 3, "i0/b", 90, true);
		if (handlings.endsWith("of the undone take")) {
			ledger.settlements.add(new QueueLedger.Settlement(undone, "release", 95 * MS, "i2/a"));
		}
		if (handlings.endsWith("after the rollback")) {
			// its own delivery, given back uncounted: the fourth handling is over
			ledger.settlements.add(new QueueLedger.Settlement(undone, "release", 95 * MS, "i0/b"));
		}
		if (!handlings.equals("three")) {
			streamTake(ledger, "p0-1", 3, "i1/b", 100, true);
		}
		List<String> violations = scenario.check(history);
		if (!handlings.equals("three") && !handlings.endsWith("of the undone take")) {
			assertThat(violations).singleElement()
				.satisfies((violation) -> assertThat(violation).contains("p0-1 handled 4 times"));
		}
		else {
			assertThat(violations).isEmpty();
		}
	}

	/**
	 * A listener's take sent before a client's take of the same stream entry and count
	 * was answered after the client released it (a recorded history, seed 7 on streams):
	 * the listener's fail settles the listener's take, so a third take after it is no
	 * second holder.
	 */
	@Test
	void theCheckerNamesTheTakeOfItsConsumerAnsweredLastBeforeASettlement() {
		QueueScenario scenario = QueueScenario.onStreams();
		History history = new History();
		history.add(send(0, "p0-1", 0, 1));
		QueueLedger ledger = scenario.ledger();
		String first = "1-0#m1|1|\"p0-1\"";
		String second = "1-0#m1|2|\"p0-1\"";
		ledger.takes.add(new QueueLedger.Take(first, "p0-1", 1, "i0/client-0", 2 * MS, 3 * MS));
		ledger.handlings.add(new QueueLedger.Handling(first, "p0-1", "client-0", 3 * MS, 4 * MS, false));
		ledger.settlements.add(new QueueLedger.Settlement(first, "fail", 4 * MS, "i0/client-0"));
		ledger.takes.add(new QueueLedger.Take(second, "p0-1", 2, "i2/listener-1", 50 * MS, 80 * MS));
		ledger.takes.add(new QueueLedger.Take(second, "p0-1", 2, "i1/client-1", 60 * MS, 61 * MS));
		ledger.settlements.add(new QueueLedger.Settlement(second, "release", 62 * MS, "i1/client-1"));
		ledger.handlings.add(new QueueLedger.Handling(second, "p0-1", "i2/listener-1", 81 * MS, 82 * MS, false));
		ledger.settlements.add(new QueueLedger.Settlement(second, "fail", 83 * MS, "i2/listener-1"));
		streamTake(ledger, "p0-1", 3, "i1/listener-1", 300, true);
		assertThat(scenario.check(history)).isEmpty();
	}

	/**
	 * The soak's seed 4736740237695556170 on streams, as it ran (a recorded history): the
	 * first checker put the handling of a delivery taken again after a restart on an
	 * older snapshot in the epoch before it, with the take of the same entry and count
	 * that the restart undid, and found it handled 4 times (issue 46).
	 */
	@Test
	void theCheckerFindsNothingInTheSoaksRollbackSeedOnStreams() {
		assertThat(Recording.judge("streams-rollback-seed4736740237695556170", QueueScenario.onStreams())).isEmpty();
	}

	/**
	 * A stream take in a ledger: its key is its entry id and delivery count, handled (ok
	 * or failed) from a millisecond after it began.
	 * @return its key
	 */
	private static String streamTake(QueueLedger ledger, String payload, int deliveries, String consumer,
			long invokedMillis, boolean ok) {
		String take = "1-0#m1|" + deliveries + "|\"" + payload + "\"";
		ledger.takes.add(new QueueLedger.Take(take, payload, deliveries, consumer, invokedMillis * MS,
				(invokedMillis + 1) * MS));
		ledger.handlings.add(new QueueLedger.Handling(take, payload, consumer, (invokedMillis + 1) * MS,
				(invokedMillis + 2) * MS, ok));
		ledger.settlements.add(new QueueLedger.Settlement(take, ok ? "ack" : "fail", (invokedMillis + 2) * MS));
		return take;
	}

	private static Op send(int process, String payload, long invokedMillis, long completedMillis) {
		return new Op(process, "send", payload, 0, invokedMillis * MS, completedMillis * MS, Outcome.OK, null);
	}

}
