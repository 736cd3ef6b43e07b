package io.github.redkit.faults;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisNode;
import io.github.redkit.testsupport.RespClient;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;

/**
 * Every fault the nemesis injects really happens, seen by a client of its own: a harness
 * whose faults did nothing would pass every checker. And the cut after a write, which
 * makes the client send a command again, is seen by every capability's checker on a build
 * with the dedupe removed (issue 43).
 */
class NemesisTests {

	private static final Duration SHORT = Duration.ofMillis(300);

	// a failed-over node's first answers, which no test bounds in time
	private static final Duration AFTER_FAILOVER = Duration.ofSeconds(15);

	/**
	 * Cuts after a write every 400 ms over 5 s, at every link in turn: the schedule the
	 * builds without a dedupe run under. Each cut costs its instance a reconnect, and
	 * calls that time out meanwhile have unknown outcomes, which excuse a change applied
	 * or not: denser cuts hide what they cause.
	 */
	private static final Schedule CUTS_AFTER_WRITE = new Schedule(7, 5000,
			IntStream.range(0, 11)
				.mapToObj((i) -> new FaultEvent(300 + i * 400L, Fault.CUT_AFTER_WRITE, 0, i, 0))
				.toList());

	/**
	 * Cuts after a write every 250 ms over 3 s, at every link in turn, each waiting for a
	 * call of the queue scripts a run is aimed at: the schedule of the queue builds
	 * without one of their protections.
	 */
	private static final Schedule QUEUE_CUTS_AFTER_WRITE = new Schedule(7, 3000,
			IntStream.range(0, 11)
				.mapToObj((i) -> new FaultEvent(250 + i * 250L, Fault.CUT_AFTER_WRITE, 0, i, 0))
				.toList());

	@Test
	void aFrozenRedisAnswersNothingUntilItContinues(@PrivateRedis RedisNode node) {
		try (Rig rig = new Rig(List.of(node))) {
			int link = rig.link(0);
			Thread nemesis = inject(rig, new FaultEvent(0, Fault.PAUSE, 1500, 0, 0));
			awaitFault(nemesis);
			assertThatRuntimeException().isThrownBy(() -> call(link, SHORT, "PING"));
			join(nemesis);
			assertThat(call(link, SHORT, "PING")).isEqualTo("PONG");
		}
	}

	@Test
	void aClientPauseHoldsCommands(@PrivateRedis RedisNode node) {
		try (Rig rig = new Rig(List.of(node))) {
			int link = rig.link(0);
			Thread nemesis = inject(rig, new FaultEvent(0, Fault.CLIENT_PAUSE, 1500, 0, 0));
			awaitFault(nemesis);
			assertThatRuntimeException().isThrownBy(() -> call(link, SHORT, "SET", "k", "v"));
			join(nemesis);
		}
	}

	@Test
	void aRestartEmptyForgetsEverything(@PrivateRedis RedisNode node) {
		try (Rig rig = new Rig(List.of(node))) {
			int link = rig.link(0);
			call(link, SHORT, "SET", "k", "v");
			join(inject(rig, new FaultEvent(0, Fault.RESTART_EMPTY, 0, 0, 0)));
			assertThat(call(link, Duration.ofSeconds(2), "EXISTS", "k")).isEqualTo(0L);
		}
	}

	@Test
	void aRestartFromASnapshotForgetsWhatCameAfterIt(@PrivateRedis RedisNode node) {
		try (Rig rig = new Rig(List.of(node))) {
			int link = rig.link(0);
			call(link, SHORT, "SET", "before", "v");
			Thread nemesis = inject(rig, new FaultEvent(0, Fault.RESTART_FROM_SNAPSHOT, 800, 0, 0));
			awaitFault(nemesis);
			call(link, SHORT, "SET", "after", "v");
			join(nemesis);
			assertThat(call(link, Duration.ofSeconds(2), "EXISTS", "before")).isEqualTo(1L);
			assertThat(call(link, SHORT, "EXISTS", "after")).isEqualTo(0L);
		}
	}

	@Test
	void latencyDelaysEveryRoundTrip(@PrivateRedis RedisNode node) {
		try (Rig rig = new Rig(List.of(node))) {
			int link = rig.link(0);
			Thread nemesis = inject(rig, new FaultEvent(0, Fault.LATENCY, 1500, 0, 200));
			awaitFault(nemesis);
			long started = System.nanoTime();
			call(link, Duration.ofSeconds(2), "PING");
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(400));
			join(nemesis);
		}
	}

	@Test
	void aPartitionHoldsEverythingAndDeliversItWhenHealed(@PrivateRedis RedisNode node) {
		try (Rig rig = new Rig(List.of(node))) {
			int link = rig.link(0);
			try (RespClient client = RespClient.connect("127.0.0.1", link, Duration.ofSeconds(5))) {
				Thread nemesis = inject(rig, new FaultEvent(0, Fault.PARTITION, 1000, 0, 0));
				awaitFault(nemesis);
				long started = System.nanoTime();
				assertThat(client.call("INCR", "held")).isEqualTo(1L);
				assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(Duration.ofMillis(300));
				join(nemesis);
			}
		}
	}

	@Test
	void aCutClosesOpenConnections(@PrivateRedis RedisNode node) {
		try (Rig rig = new Rig(List.of(node))) {
			int link = rig.link(0);
			try (RespClient client = RespClient.connect("127.0.0.1", link, Duration.ofSeconds(2))) {
				assertThat(client.call("PING")).isEqualTo("PONG");
				join(inject(rig, new FaultEvent(0, Fault.CUT, 0, 0, 0)));
				assertThatRuntimeException().isThrownBy(() -> client.call("PING"));
			}
		}
	}

	@Test
	void aCutAfterAWriteAppliesTheRequestAndLosesItsReply(@PrivateRedis RedisNode node) {
		try (Rig rig = new Rig(List.of(node))) {
			int link = rig.link(0);
			try (RespClient client = RespClient.connect("127.0.0.1", link, Duration.ofSeconds(2))) {
				assertThat(client.call("PING")).isEqualTo("PONG");
				join(inject(rig, new FaultEvent(0, Fault.CUT_AFTER_WRITE, 0, 0, 0)));
				assertThatRuntimeException().isThrownBy(() -> client.call("INCR", "applied"));
			}
			assertThat(rig.linkAt(0).cutsAfterWrite()).isEqualTo(1);
			assertThat(call(link, SHORT, "GET", "applied")).isEqualTo("1");
		}
	}

	@Test
	void aScriptFlushForgetsLoadedScripts(@PrivateRedis RedisNode node) {
		try (Rig rig = new Rig(List.of(node))) {
			int link = rig.link(0);
			String sha = (String) call(link, SHORT, "SCRIPT", "LOAD", "return 1");
			join(inject(rig, new FaultEvent(0, Fault.SCRIPT_FLUSH, 0, 0, 0)));
			assertThat(call(link, SHORT, "SCRIPT", "EXISTS", sha)).isEqualTo(List.of(0L));
		}
	}

	@Test
	void aClockJumpMovesRedisTime(@PrivateRedis(movableClock = true) RedisNode node) {
		try (Rig rig = new Rig(List.of(node))) {
			int link = rig.link(0);
			long before = redisSeconds(link);
			join(inject(rig, new FaultEvent(0, Fault.CLOCK_JUMP, 0, 0, 5000)));
			assertThat(redisSeconds(link) - before).isBetween(4L, 7L);
			// each step moves the clock from where the last one left it
			join(inject(rig, new FaultEvent(0, Fault.CLOCK_JUMP, 0, 0, 5000),
					new FaultEvent(100, Fault.CLOCK_JUMP, 0, 0, -3000)));
			assertThat(redisSeconds(link) - before).isBetween(1L, 4L);
		}
	}

	@Test
	void aFailoverToAReplicaBehindLosesWhatTheMasterAcknowledgedAfterTheCut(
			@PrivateRedis(replica = true) RedisNode node) {
		try (Rig rig = new Rig(List.of(node))) {
			int link = rig.link(0);
			int oldMaster = rig.node(0).port();
			try (RespClient client = RespClient.connect("127.0.0.1", link, Duration.ofSeconds(3))) {
				// WAIT counts the replicas that have this connection's writes
				client.call("SET", "before", "v");
				assertThat(client.call("WAIT", "1", "2000")).as("the replica in sync").isEqualTo(1L);
			}
			Thread nemesis = inject(rig, new FaultEvent(0, Fault.FAILOVER_BEHIND, 1000, 0, 0));
			// the cut first waits for the replica to hold what was acknowledged: a write
			// before the master dropped its replica would still reach it
			awaitReplicaDropped(oldMaster, nemesis);
			assertThat(call(link, SHORT, "SET", "after", "v")).isEqualTo("OK");
			join(nemesis);
			assertThat(rig.node(0).port()).isNotEqualTo(oldMaster);
			// what is judged is what the new master holds, not how soon it answers (at
			// load 30 an EXISTS went unanswered for 2 s after the failover)
			assertThat(call(link, AFTER_FAILOVER, "EXISTS", "before")).isEqualTo(1L);
			assertThat(call(link, AFTER_FAILOVER, "EXISTS", "after")).isEqualTo(0L);
			assertThat(call(link, AFTER_FAILOVER, "SET", "later", "v")).isEqualTo("OK");
		}
	}

	/**
	 * A restart on a snapshot still happens while a background save runs (a replica's
	 * full sync forks one, as after a restart): Redis refuses a {@code SAVE} meanwhile,
	 * which ended the nemesis, and every fault after it unseen (the failover of the rate
	 * limits' seed among them, in 1 of 12 runs).
	 */
	@Test
	void aRestartFromASnapshotWaitsForABackgroundSave(@PrivateRedis RedisNode node) {
		try (Rig rig = new Rig(List.of(node))) {
			int link = rig.link(0);
			for (int i = 0; i < 20; i++) {
				call(link, SHORT, "SET", "before-" + i, "v");
			}
			// a background save of about a second: 50 ms a key, in a child that keeps it
			call(link, SHORT, "CONFIG", "SET", "rdb-key-save-delay", "50000");
			// the fork behind it can stall a loaded machine longer than SHORT
			call(link, Duration.ofSeconds(10), "BGSAVE");
			call(link, SHORT, "CONFIG", "SET", "rdb-key-save-delay", "0");
			String runId = runId(link);
			join(inject(rig, new FaultEvent(0, Fault.RESTART_FROM_SNAPSHOT, 100, 0, 0)));
			assertThat(runId(link)).as("a Redis restarted").isNotEqualTo(runId);
			assertThat(call(link, Duration.ofSeconds(2), "EXISTS", "before-0")).isEqualTo(1L);
		}
	}

	/**
	 * A failover soon after a restart, empty or on a snapshot, loses only what the master
	 * acknowledged after the cut, as any other: the restarted master begins a new
	 * replication history, and its replica, not yet synced again, still stood further in
	 * the old one, which the nemesis took for caught up. The rate limits' failover seed
	 * comes 0.9 s after a restart on a snapshot: in 6 of 11 runs its replica was still
	 * outside the master's history at the cut, and the replica promoted lacked calls
	 * acknowledged before it, which the checker holds as kept (issue 43).
	 * @param restart the restart before the failover
	 */
	@ParameterizedTest
	@EnumSource(value = Fault.class, names = { "RESTART_EMPTY", "RESTART_FROM_SNAPSHOT" })
	void aFailoverSoonAfterARestartLosesOnlyWhatTheMasterAcknowledgedAfterTheCut(Fault restart,
			@PrivateRedis(replica = true) RedisNode node) {
		try (Rig rig = new Rig(List.of(node))) {
			int link = rig.link(0);
			try (RespClient client = RespClient.connect("127.0.0.1", link, Duration.ofSeconds(3))) {
				// the replica's offset goes past where the restarted master's history
				// begins
				for (int i = 0; i < 100; i++) {
					client.call("SET", "before-the-restart-" + i, "v");
				}
				assertThat(client.call("WAIT", "1", "2000")).as("the replica in sync").isEqualTo(1L);
			}
			Thread restarting = inject(rig, new FaultEvent(0, restart, 500, 0, 0));
			if (restart == Fault.RESTART_FROM_SNAPSHOT) {
				// written after the snapshot, lost by the restart: the replica's offset
				// goes further still, and it cannot continue where the snapshot ends
				awaitFault(restarting);
				try (RespClient client = RespClient.connect("127.0.0.1", link, Duration.ofSeconds(3))) {
					for (int i = 0; i < 100; i++) {
						client.call("SET", "after-the-snapshot-" + i, "v");
					}
				}
			}
			join(restarting);
			assertThat(call(link, Duration.ofSeconds(2), "SET", "acknowledged", "v")).isEqualTo("OK");
			join(inject(rig, new FaultEvent(0, Fault.FAILOVER_BEHIND, 100, 0, 0)));
			assertThat(call(link, Duration.ofSeconds(2), "EXISTS", "acknowledged"))
				.as("a write the master acknowledged before the cut, after the failover")
				.isEqualTo(1L);
		}
	}

	/**
	 * Each checker fails a build with the dedupe of a command removed, under cuts after a
	 * write: judged on a run recorded once (live in the soak).
	 * @param removed the build
	 */
	@ParameterizedTest
	@EnumSource(DedupeRemovedBuild.class)
	void eachCheckerCatchesABuildWithoutItsDedupeUnderCutsAfterAWrite(DedupeRemovedBuild removed) {
		assertCaught(removed, Recording.judge(removed.recording(), removed.scenario.get()));
	}

	@Tag("soak")
	@ParameterizedTest
	@EnumSource(DedupeRemovedBuild.class)
	void eachCheckerCatchesABuildWithoutItsDedupeUnderCutsAfterAWriteLive(DedupeRemovedBuild removed) {
		// a cut meets a command whose replay shows (a lock granted, a spend without an
		// id) in one run of three or more: up to six runs, the one that caught it
		// recorded
		FaultRun.Result result = null;
		for (int run = 0; run < 6 && (result == null || !caught(removed, result.violations())); run++) {
			result = Recording.run(removed.recording(), removed.scenario,
					new Schedule(7 + run, CUTS_AFTER_WRITE.millis(), CUTS_AFTER_WRITE.events()));
		}
		assertCaught(removed, result.violations());
	}

	/**
	 * Each of the queue's protections against a command sent again, taken out of its
	 * script, is caught by a checker under cuts after a write aimed at that script's
	 * calls (issue 43): judged on a run recorded once (live in the soak). The live run
	 * only repeats what the recording holds: the aimed cut itself is held by
	 * {@code TcpProxyCutAfterWriteTests}, and the good build runs live under the same
	 * cuts below.
	 * @param removed the build
	 */
	@ParameterizedTest
	@EnumSource(QueueProtectionRemoved.class)
	void eachQueueProtectionTakenOutIsCaughtUnderCutsAfterAWriteAimedAtItsCommand(QueueProtectionRemoved removed) {
		QueueScenario.Breakage breakage = removed.breakage;
		assertThat(Recording.judge(removed.recording(), QueueScenario.aimedAt(breakage, breakage.script())))
			.as("violations of %s", removed)
			.anyMatch((violation) -> violation.contains(removed.rule))
			.noneMatch((violation) -> violation.contains("judged no"));
	}

	@Tag("soak")
	@ParameterizedTest
	@EnumSource(QueueProtectionRemoved.class)
	void eachQueueProtectionTakenOutIsCaughtUnderCutsAfterAWriteAimedAtItsCommandLive(QueueProtectionRemoved removed) {
		QueueScenario.Breakage breakage = removed.breakage;
		FaultRun.Result result = Recording.run(removed.recording(),
				() -> QueueScenario.aimedAt(breakage, breakage.script()), QUEUE_CUTS_AFTER_WRITE);
		assertThat(result.violations()).as("violations of %s", removed)
			.anyMatch((violation) -> violation.contains(removed.rule));
		assertCutEach(result, List.of(Objects.requireNonNull(breakage.script())));
	}

	/**
	 * The good build under the same cuts, aimed at every one of those commands in turn,
	 * keeps every promise; and each of those commands was cut at least once (the server
	 * applied it, its answer never came back), so that a run whose cuts met nothing
	 * cannot pass.
	 */
	@Test
	void theQueuesKeepTheirPromisesUnderCutsAfterAWriteAimedAtEachProtectedCommand() {
		List<String> aimed = List.of(QueueScenario.SEND, QueueScenario.TAKE, QueueScenario.DELAY,
				QueueScenario.REQUEUE);
		FaultRun.Result result = Recording.run("aimed-queues-NONE",
				() -> QueueScenario.aimedAt(QueueScenario.Breakage.NONE, aimed.toArray(String[]::new)),
				QUEUE_CUTS_AFTER_WRITE);
		assertThat(result.violations()).as("violations of the good build").isEmpty();
		assertCutEach(result, aimed);
	}

	/**
	 * A script aimed at and not cut yet is aimed at again by every later cut, whatever
	 * link it is armed on, until it is cut: a script the workload calls rarely is cut in
	 * a short run too (strict turns re-armed its link with another script first).
	 */
	@Test
	void anAimedScriptNotCutYetIsAimedAtAgainUntilItIsCut(@PrivateRedis RedisNode node) {
		try (Rig rig = new Rig(List.of(node))) {
			int first = rig.link(0);
			int second = rig.link(0);
			String a = (String) call(first, SHORT, "SCRIPT", "LOAD", "return 'a'");
			String b = (String) call(first, SHORT, "SCRIPT", "LOAD", "return 'b'");
			Map<String, byte[]> markers = new LinkedHashMap<>();
			markers.put("a", a.getBytes(StandardCharsets.US_ASCII));
			markers.put("b", b.getBytes(StandardCharsets.US_ASCII));
			rig.aimCutsAfterWrite(markers);
			rig.cutAfterNextWrite(0);
			rig.cutAfterNextWrite(1);
			callEach(second, a, b);
			rig.cutAfterNextWrite(1);
			rig.cutAfterNextWrite(1);
			callEach(second, a, b);
			assertThat(rig.aimedCuts()).as("cuts after a write, by script")
				.containsOnlyKeys("a", "b")
				.allSatisfy((script, cuts) -> assertThat(cuts).as("cuts after a call of %s", script).isPositive());
		}
	}

	/** Calls each script once on a fresh connection; a call cut after its write fails. */
	private static void callEach(int link, String... shas) {
		for (String sha : shas) {
			try {
				call(link, SHORT, "EVALSHA", sha, "0");
			}
			catch (RuntimeException ex) {
				// cut after the write: the server ran it, its answer never came
			}
		}
	}

	/**
	 * Fails unless each script a run aimed its cuts after a write at was cut at least
	 * once.
	 */
	static void assertCutEach(FaultRun.Result result, List<String> scripts) {
		assertThat(result.aimedCuts()).as("cuts after a write done, by the script they were aimed at")
			.containsOnlyKeys(scripts)
			.allSatisfy((script, cuts) -> assertThat(cuts).as("cuts after a call of %s", script).isPositive());
	}

	private static boolean caught(DedupeRemovedBuild removed, List<String> violations) {
		return violations.stream().anyMatch((violation) -> violation.contains(removed.rule));
	}

	private static void assertCaught(DedupeRemovedBuild removed, List<String> violations) {
		assertThat(violations).as("violations of %s", removed)
			.anyMatch((violation) -> violation.contains(removed.rule))
			.noneMatch((violation) -> violation.contains("judged no"));
	}

	/**
	 * A build whose replays apply twice, per capability, and the checker's rule that must
	 * catch it. Budgets, locks and steps recognise a command delivered again: their
	 * builds lose that, so only a replay shows it. Rate limits, queues and regions apply
	 * one call in five twice, as a replay without a dedupe does, whatever their own
	 * dedupe becomes.
	 */
	enum DedupeRemovedBuild {

		BUDGETS(() -> new BudgetScenario(BudgetScenario.Breakage.NO_OPERATION_ID), "budgets-NO_OPERATION_ID",
				"is not the budget"),

		LOCKS(() -> new LockScenario(LockScenario.Breakage.REPLAY_NOT_RECOGNISED), "locks-REPLAY_NOT_RECOGNISED",
				"refused while no other acquisition could hold it"),

		IDEMPOTENT_STEPS(() -> new IdempotentStepScenario(IdempotentStepScenario.Breakage.REPLAY_NOT_RECOGNISED),
				"idempotent-steps-REPLAY_NOT_RECOGNISED", "IN_PROGRESS with no claim that could hold the step"),

		RATE_LIMITS(() -> new RateLimitScenario(RateLimitScenario.Breakage.APPLIED_TWICE), "rate-limits-APPLIED_TWICE",
				"refused by its"),

		QUEUES(() -> new QueueScenario(QueueScenario.Breakage.SENT_TWICE), "queues-SENT_TWICE", "enqueued 2 times"),

		REGIONS(() -> new RegionScenario(EnumSet.of(RegionScenario.Breakage.DOUBLE_INCREMENT)),
				"regions-DOUBLE_INCREMENT", "makes up the difference");

		private final Supplier<? extends Scenario> scenario;

		private final String name;

		private final String rule;

		DedupeRemovedBuild(Supplier<? extends Scenario> scenario, String name, String rule) {
			this.scenario = scenario;
			this.name = name;
			this.rule = rule;
		}

		String recording() {
			return "replay-" + this.name;
		}

	}

	/**
	 * A queue build with one protection against a replay taken out of its script, and the
	 * rule that must catch it.
	 */
	enum QueueProtectionRemoved {

		/** A send sent again pushes its messages again. */
		SEND(QueueScenario.Breakage.SEND_WITHOUT_RECORD, "enqueued 2 times"),

		/** A take sent again pops another batch; the first is burnt. */
		TAKE(QueueScenario.Breakage.TAKE_WITHOUT_REPLAY, "a delivery burnt by a lost take"),

		/** A delayed send sent again collapses into itself. */
		DELAY(QueueScenario.Breakage.DELAY_WITHOUT_RECORD, "answered collapsed"),

		/** A requeue by id sent again answers that it moved nothing. */
		REQUEUE(QueueScenario.Breakage.REQUEUE_WITHOUT_RECORD, "a requeue applied and answered otherwise");

		private final QueueScenario.Breakage breakage;

		private final String rule;

		QueueProtectionRemoved(QueueScenario.Breakage breakage, String rule) {
			this.breakage = breakage;
			this.rule = rule;
		}

		QueueScenario.Breakage breakage() {
			return this.breakage;
		}

		String rule() {
			return this.rule;
		}

		String recording() {
			return "aimed-queues-" + this.breakage;
		}

	}

	private static String runId(int link) {
		String info = String.valueOf(call(link, Duration.ofSeconds(2), "INFO", "server"));
		return info.lines().filter((line) -> line.startsWith("run_id:")).findFirst().orElseThrow();
	}

	private static long redisSeconds(int link) {
		@SuppressWarnings("unchecked")
		List<Object> time = (List<Object>) call(link, SHORT, "TIME");
		return Long.parseLong(String.valueOf(time.get(0)));
	}

	private static Thread inject(Rig rig, FaultEvent... events) {
		Thread nemesis = new Thread(new Nemesis(new Schedule(0, 0, List.of(events)), rig, new History()));
		nemesis.start();
		return nemesis;
	}

	/** Lets a lasting fault begin: the nemesis starts it at once, well within this. */
	private static void awaitReplicaDropped(int master, Thread nemesis) {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		try (RespClient client = RespClient.connect("127.0.0.1", master, Duration.ofSeconds(3))) {
			while (!client.callForString("INFO", "replication").contains("connected_slaves:0")) {
				assertThat(System.nanoTime() < deadline).as("the master dropped its replica within 30 s").isTrue();
				assertThat(nemesis.isAlive()).as("the fault still lasting").isTrue();
				Thread.onSpinWait();
			}
		}
		assertThat(nemesis.isAlive()).as("the fault still lasting").isTrue();
	}

	private static void awaitFault(Thread nemesis) {
		try {
			nemesis.join(200);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		assertThat(nemesis.isAlive()).as("the fault still lasting").isTrue();
	}

	private static void join(Thread nemesis) {
		try {
			nemesis.join(30_000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static Object call(int port, Duration timeout, String... command) {
		try (RespClient client = RespClient.connect("127.0.0.1", port, timeout)) {
			return client.call(command);
		}
	}

}
