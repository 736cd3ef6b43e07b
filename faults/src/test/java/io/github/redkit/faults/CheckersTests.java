package io.github.redkit.faults;

import java.util.List;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queue checker's rules for a command sent again (issue 43), on histories made by
 * hand: what a build keeping its promise writes passes, what a build without the
 * command's dedupe writes is flagged, naming the message and the takes; and each rule
 * that was lenient (it passed some broken builds), tightened: the good history still
 * passes, the broken one is caught. No server.
 */
class CheckersTests {

	private static final long MS = 1_000_000;

	private static final long VISIBILITY = QueueScenario.VISIBILITY_MILLIS;

	@Test
	void aMessageEachOfWhoseDeliveriesReachedAConsumerPasses() {
		QueueScenario scenario = new QueueScenario();
		History history = sent("p0-1");
		QueueLedger ledger = scenario.ledger();
		ledger.calls.add(new QueueLedger.TakeCall("t1", 0, 10 * MS, 11 * MS, 1));
		ledger.takes.add(take("t1", "m1", "p0-1", 1, 10, 11));
		ledger.handlings.add(new QueueLedger.Handling("t1#m1|1|\"p0-1\"", "p0-1", "i0/a", 12 * MS, 13 * MS, false));
		ledger.settlements.add(new QueueLedger.Settlement("t1#m1|1|\"p0-1\"", "fail", 13 * MS));
		ledger.calls.add(new QueueLedger.TakeCall("t2", 1, 100 * MS, 101 * MS, 1));
		ledger.takes.add(take("t2", "m1", "p0-1", 2, 100, 101));
		handled(ledger, "t2", "m1", "p0-1", 2, 102);
		assertThat(scenario.check(history)).isEmpty();
	}

	@Test
	void aDeliveryATakeWhoseOutcomeIsUnknownMayHaveTakenPasses() {
		QueueScenario scenario = new QueueScenario();
		History history = sent("p0-1");
		QueueLedger ledger = scenario.ledger();
		// the take timed out: what it popped comes back after its visibility
		ledger.calls.add(new QueueLedger.TakeCall("t1", 0, 10 * MS, 1010 * MS, -1));
		ledger.calls.add(new QueueLedger.TakeCall("t2", 1, (VISIBILITY + 20) * MS, (VISIBILITY + 21) * MS, 1));
		ledger.takes.add(take("t2", "m1", "p0-1", 2, VISIBILITY + 20, VISIBILITY + 21));
		handled(ledger, "t2", "m1", "p0-1", 2, VISIBILITY + 22);
		assertThat(scenario.check(history)).isEmpty();
	}

	@Test
	void aDeliveryBurntByALostTakeIsFlaggedWithTheMessageAndTheTakes() {
		QueueScenario scenario = new QueueScenario();
		History history = sent("p0-1");
		// a cut after a write on instance 0's link: its take t1 popped m1, the reply was
		// lost, the take was sent again and answered another batch (here none)
		history.fault(new FaultRecord(new FaultEvent(0, Fault.CUT_AFTER_WRITE, 0, 0, 0), 9 * MS, 9 * MS));
		QueueLedger ledger = scenario.ledger();
		ledger.calls.add(new QueueLedger.TakeCall("t1", 0, 10 * MS, 25 * MS, 0));
		ledger.calls.add(new QueueLedger.TakeCall("t2", 1, (VISIBILITY + 20) * MS, (VISIBILITY + 21) * MS, 1));
		ledger.takes.add(take("t2", "m1", "p0-1", 2, VISIBILITY + 20, VISIBILITY + 21));
		handled(ledger, "t2", "m1", "p0-1", 2, VISIBILITY + 22);
		assertThat(scenario.check(history)).singleElement()
			.asString()
			.contains("a delivery burnt by a lost take")
			.contains("p0-1 (message m1)")
			.contains("delivery 1 was counted but reached no consumer")
			.contains("delivered as 2 to take t2")
			.contains("take t1 of i0");
	}

	@Test
	void aDelayedSendAnsweredCollapsedIsFlagged() {
		QueueScenario scenario = new QueueScenario();
		History history = new History();
		history.add(new Op(0, "send", "p0-1", 0, 0, MS, Outcome.OK, true));
		history.add(new Op(0, "send", "p0-2", 0, 2 * MS, 3 * MS, Outcome.OK, false));
		QueueLedger ledger = scenario.ledger();
		ledger.takes.add(take("t1", "m1", "p0-1", 1, 400, 401));
		handled(ledger, "t1", "m1", "p0-1", 1, 402);
		ledger.takes.add(take("t2", "m2", "p0-2", 1, 400, 401));
		handled(ledger, "t2", "m2", "p0-2", 1, 402);
		assertThat(scenario.check(history)).singleElement().asString().contains("p0-2 answered collapsed (false)");
	}

	@Test
	void aDeadLetterRequeuedByACallThatAnsweredFalseIsFlagged() {
		QueueScenario scenario = new QueueScenario();
		History history = sent("p0-1");
		QueueLedger ledger = scenario.ledger();
		for (int delivery = 1; delivery <= QueueScenario.MAX_ATTEMPTS; delivery++) {
			ledger.takes.add(take("t" + delivery, "m1", "p0-1", delivery, delivery * 100, delivery * 100 + 1));
			ledger.handlings.add(new QueueLedger.Handling("t" + delivery + "#m1|" + delivery + "|\"p0-1\"", "p0-1",
					"i0/a", (delivery * 100 + 2) * MS, (delivery * 100 + 3) * MS, false));
			ledger.settlements.add(new QueueLedger.Settlement("t" + delivery + "#m1|" + delivery + "|\"p0-1\"", "fail",
					(delivery * 100 + 3) * MS));
		}
		// re-queued: its deliveries start again, as many handlings again are allowed
		history.add(new Op(1, "requeue", "p0-1", 0, 1000 * MS, 1001 * MS, Outcome.OK, true));
		ledger.takes.add(take("t4", "m1", "p0-1", 1, 1100, 1101));
		handled(ledger, "t4", "m1", "p0-1", 1, 1102);
		assertThat(scenario.check(history)).isEmpty();
		// a second requeue that moved it and answered false
		history.add(new Op(1, "requeue", "p0-1", 0, 2000 * MS, 2001 * MS, Outcome.OK, false));
		ledger.takes.add(take("t5", "m1", "p0-1", 1, 2100, 2101));
		handled(ledger, "t5", "m1", "p0-1", 1, 2102);
		assertThat(scenario.check(history)).singleElement()
			.asString()
			.contains("p0-1 re-queued 2 times (first delivered 3 times) though 1 requeue calls answered true or "
					+ "unknown: a requeue applied and answered otherwise");
	}

	@Test
	void aHandlingNoRecordedTakeAnsweredIsFlagged() {
		// the max-attempts rules judge a handling by its take's count: a handling without
		// one was passed unjudged
		QueueScenario scenario = new QueueScenario();
		History history = sent("p0-1");
		QueueLedger ledger = scenario.ledger();
		ledger.takes.add(take("t1", "m1", "p0-1", 1, 10, 11));
		handled(ledger, "t1", "m1", "p0-1", 1, 12);
		assertThat(scenario.check(history)).isEmpty();
		handled(ledger, "t2", "m1", "p0-1", 4, 900);
		assertThat(scenario.check(history)).singleElement()
			.asString()
			.contains("handled a delivery no recorded take answered")
			.contains("p0-1");
	}

	@Test
	void aSecondFirstDeliveryIsExplainedOnlyByARequeueSentBeforeIt() {
		QueueScenario scenario = new QueueScenario();
		History history = sent("p0-1");
		QueueLedger ledger = scenario.ledger();
		ledger.takes.add(take("t1", "m1", "p0-1", 1, 10, 11));
		handled(ledger, "t1", "m1", "p0-1", 1, 12);
		// delivered first again, and a requeue that answered true sent only afterwards:
		// it moved nothing this delivery could be (was passed: any requeue of the run
		// counted)
		ledger.takes.add(take("t2", "m1", "p0-1", 1, 100, 101));
		handled(ledger, "t2", "m1", "p0-1", 1, 102);
		history.add(new Op(1, "requeue", "p0-1", 0, 500 * MS, 501 * MS, Outcome.OK, true));
		assertThat(scenario.check(history)).singleElement()
			.asString()
			.contains("p0-1 enqueued 2 times (first delivered 2 times)");
		// the same requeue sent before the second first delivery explains it
		QueueScenario requeuedFirst = new QueueScenario();
		History before = sent("p0-1");
		before.add(new Op(1, "requeue", "p0-1", 0, 50 * MS, 51 * MS, Outcome.OK, true));
		requeuedFirst.ledger().takes.addAll(ledger.takes);
		requeuedFirst.ledger().handlings.addAll(ledger.handlings);
		requeuedFirst.ledger().settlements.addAll(ledger.settlements);
		assertThat(requeuedFirst.check(before)).isEmpty();
	}

	@Test
	void aTakeWhoseCallOverlappedTheHoldersIsJudgedByTheDeliveriesItCounted() {
		// a listener's take waits for the ready list: its call began before the holder's
		// take was answered; counting delivery 2, Redis ran it after the holder's take
		QueueScenario scenario = new QueueScenario();
		History history = sent("p0-1");
		QueueLedger ledger = scenario.ledger();
		ledger.takes.add(take("t1", "m1", "p0-1", 1, 10, 11));
		ledger.handlings.add(new QueueLedger.Handling("t1#m1|1|\"p0-1\"", "p0-1", "i0/a", 12 * MS, 13 * MS, false));
		ledger.settlements.add(new QueueLedger.Settlement("t1#m1|1|\"p0-1\"", "fail", 13 * MS));
		// taken again after the holder's fail: kept
		ledger.takes.add(take("t2", "m1", "p0-1", 2, 5, 80));
		handled(ledger, "t2", "m1", "p0-1", 2, 81);
		assertThat(scenario.check(history)).isEmpty();
		// taken again while the holder still had it (was passed: its call began first)
		QueueScenario broken = new QueueScenario();
		QueueLedger held = broken.ledger();
		held.takes.add(take("t1", "m1", "p0-1", 1, 10, 11));
		handled(held, "t1", "m1", "p0-1", 1, 200);
		held.takes.add(take("t2", "m1", "p0-1", 2, 5, 80));
		held.handlings.add(new QueueLedger.Handling("t2#m1|2|\"p0-1\"", "p0-1", "i0/b", 81 * MS, 82 * MS, true));
		assertThat(broken.check(sent("p0-1"))).anySatisfy(
				(violation) -> assertThat(violation).contains("p0-1 was taken again while its holder still had it")
					.contains("take t2"));
	}

	@Test
	void aTakeThatCountedMoreButWasAnsweredBeforeTheHoldersCallBeganIsNotJudgedAgainstIt() {
		// a release gives a delivery back: a take answered earlier may count more than a
		// later one, and Redis ran it before (the 30-minute soak of 2026-11-30 found 26)
		QueueScenario scenario = new QueueScenario();
		QueueLedger ledger = scenario.ledger();
		ledger.takes.add(take("t1", "m1", "p0-1", 2, 5, 6));
		ledger.settlements.add(new QueueLedger.Settlement("t1#m1|2|\"p0-1\"", "release", 7 * MS));
		ledger.takes.add(take("t2", "m1", "p0-1", 1, 100, 101));
		handled(ledger, "t2", "m1", "p0-1", 1, 200);
		assertThat(scenario.check(sent("p0-1"))).noneMatch((violation) -> violation.contains("was taken again"));
	}

	private static History sent(String payload) {
		History history = new History();
		history.add(new Op(0, "send", payload, 0, 0, MS, Outcome.OK, null));
		return history;
	}

	private static QueueLedger.Take take(String token, String id, String payload, int deliveries, long invokedMillis,
			long completedMillis) {
		return new QueueLedger.Take(token + "#" + id + "|" + deliveries + "|\"" + payload + "\"", payload, deliveries,
				"i0/a", invokedMillis * MS, completedMillis * MS);
	}

	/**
	 * The soak's seed 8435492947819353636: Redis lost its data (restart empty) while its
	 * clock was 3 s behind where it had been, and the second lock's token was taken then,
	 * before a step forward that came while its call was still answering. A token may be
	 * taken anywhere in its call: it is judged by the clock's lowest offset over the
	 * call, not the offset when the call ended.
	 */
	@Test
	void aLowerTokenTakenBeforeAClockStepForwardWithinItsCallAfterADataLossIsAllowed() {
		assertThat(LockChecker.check(lockHistory(8164), List.of())).isEmpty();
		assertThat(LockChecker.check(lockHistory(8300), List.of()))
			.as("the same lower token from a call begun after the step forward")
			.singleElement(InstanceOfAssertFactories.STRING)
			.contains("token 1796013431343520 after token 1796013432254980");
	}

	/**
	 * After Redis lost its data, a token can repeat whenever its clock is behind where it
	 * had been: a step back after the restart healed counts as much as one before it.
	 */
	@Test
	void aRepeatedTokenAfterADataLossAndALaterClockStepBackIsAllowed() {
		History history = new History();
		history.fault(new FaultRecord(new FaultEvent(100, Fault.CLOCK_JUMP, 0, 0, 1000), 100 * MS, 100 * MS));
		history.fault(new FaultRecord(new FaultEvent(200, Fault.RESTART_EMPTY, 0, 1, 0), 200 * MS, 250 * MS));
		history.fault(new FaultRecord(new FaultEvent(300, Fault.CLOCK_JUMP, 0, 2, -2000), 300 * MS, 300 * MS));
		List<FencedResource.Accepted> writes = List.of(new FencedResource.Accepted("k1", 7, 1, 150 * MS),
				new FencedResource.Accepted("k1", 7, 2, 400 * MS), new FencedResource.Accepted("k1", 7, 1, 450 * MS));
		assertThat(LockChecker.check(history, writes)).isEmpty();
		History noStepBack = new History();
		noStepBack.fault(history.faults().get(0));
		noStepBack.fault(history.faults().get(1));
		assertThat(LockChecker.check(noStepBack, writes)).as("no clock behind: the same token twice is two holders")
			.singleElement(InstanceOfAssertFactories.STRING)
			.contains("accepted");
	}

	private static History lockHistory(long laterInvokedMillis) {
		History history = new History();
		history.fault(new FaultRecord(new FaultEvent(2707, Fault.CLOCK_JUMP, 0, 0, 1000), 2712 * MS, 2712 * MS));
		history.fault(new FaultRecord(new FaultEvent(6578, Fault.CLOCK_JUMP, 0, 1, -4000), 6584 * MS, 6584 * MS));
		history.fault(new FaultRecord(new FaultEvent(6856, Fault.RESTART_EMPTY, 0, 2, 0), 6861 * MS, 6904 * MS));
		history.fault(new FaultRecord(new FaultEvent(8250, Fault.CLOCK_JUMP, 0, 0, 4000), 8254 * MS, 8255 * MS));
		history.add(new Op(1, "lock", "k1", 0, 5069 * MS, 5210 * MS, Outcome.OK, 1796013432254980L));
		history.add(new Op(5, "lock", "k1", 0, laterInvokedMillis * MS, (laterInvokedMillis + 92) * MS, Outcome.OK,
				1796013431343520L));
		return history;
	}

	private static void handled(QueueLedger ledger, String token, String id, String payload, int deliveries,
			long startMillis) {
		String take = token + "#" + id + "|" + deliveries + "|\"" + payload + "\"";
		ledger.handlings
			.add(new QueueLedger.Handling(take, payload, "i0/a", startMillis * MS, (startMillis + 1) * MS, true));
		ledger.settlements.add(new QueueLedger.Settlement(take, "ack", (startMillis + 1) * MS));
	}

}
