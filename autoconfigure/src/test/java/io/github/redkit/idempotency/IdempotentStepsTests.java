package io.github.redkit.idempotency;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.idempotency.internal.IdempotencySettings;
import io.github.redkit.idempotency.internal.RedisIdempotentSteps;
import io.github.redkit.testsupport.CommandLog;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import tools.jackson.databind.json.JsonMapper;

@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class IdempotentStepsTests {

	private static final Set<String> NOTHING = Set.of();

	private static final Set<String> BID = Set.of("bid");

	@Parameter
	RedisTopology topology;

	private RedisScriptRunner runner;

	private RedisIdempotentSteps steps;

	private String auction;

	@BeforeEach
	void setUp() {
		this.runner = new RedisScriptRunner(this.topology.connectionFactory());
		this.steps = steps(Duration.ofSeconds(30));
		this.auction = "auction:" + UUID.randomUUID();
	}

	private RedisIdempotentSteps steps(Duration lease) {
		return new RedisIdempotentSteps(this.runner, new RedisKeyspace("redkit-test"), JsonMapper.builder().build(),
				new IdempotencySettings(Duration.ofHours(48), lease, Duration.ofSeconds(5)), RedkitMetrics.NONE,
				RedkitObservations.NONE);
	}

	@Test
	void aHolderWhoseClaimWasTakenOverCannotCompleteIt() {
		RedisIdempotentSteps shortLeases = steps(Duration.ofMillis(200));
		StepClaim first = shortLeases.claim(this.auction, "bid", NOTHING, null, null, null);
		assertThat(first.outcome()).isEqualTo(StepOutcome.CLAIMED);
		assertThat(shortLeases.extend(first)).as("renewed while held").isTrue();
		// the first holder stalls without renewing: its lease runs out and a duplicate
		// delivery takes the step over
		StepClaim second = await().atMost(Duration.ofSeconds(5))
			.until(() -> shortLeases.claim(this.auction, "bid", NOTHING, null, Duration.ofSeconds(30), null),
					(claim) -> claim.outcome() == StepOutcome.CLAIMED);
		assertThat(shortLeases.extend(first)).as("the first claim is gone").isFalse();
		assertThatExceptionOfType(StepClaimLostException.class)
			.isThrownBy(() -> shortLeases.complete(first, "first-result"))
			.withMessageContaining("bid");
		shortLeases.complete(second, "second-result");
		assertThat(shortLeases.result(this.auction, "bid", String.class)).isEqualTo("second-result");
		assertThatExceptionOfType(StepClaimLostException.class)
			.isThrownBy(() -> shortLeases.complete(first, "first-result"));
		assertThat(shortLeases.result(this.auction, "bid", String.class)).as("the second completion stands")
			.isEqualTo("second-result");
	}

	private StepOutcome run(String step, Set<String> after) {
		StepOutcome outcome = this.steps.claim(this.auction, step, after, null);
		if (outcome == StepOutcome.CLAIMED) {
			this.steps.complete(this.auction, step, step + "-result");
		}
		return outcome;
	}

	@Test
	void bidThenNoticeThenRepeats() {
		assertThat(run("notice", BID)).isEqualTo(StepOutcome.OUT_OF_ORDER);
		assertThat(run("bid", NOTHING)).isEqualTo(StepOutcome.CLAIMED);
		assertThat(run("bid", NOTHING)).isEqualTo(StepOutcome.DUPLICATE);
		assertThat(run("notice", BID)).isEqualTo(StepOutcome.CLAIMED);
		assertThat(run("timeout", BID)).isEqualTo(StepOutcome.OUT_OF_ORDER);
		assertThat(run("notice", BID)).isEqualTo(StepOutcome.DUPLICATE);
		assertThat(run("bid", NOTHING)).isEqualTo(StepOutcome.DUPLICATE);
		assertThat(this.steps.recordedSteps(this.auction)).containsExactlyInAnyOrder("bid", "notice");
	}

	@Test
	void bidThenTimeoutThenNoticeIsOutOfOrder() {
		assertThat(run("timeout", BID)).isEqualTo(StepOutcome.OUT_OF_ORDER);
		assertThat(run("bid", NOTHING)).isEqualTo(StepOutcome.CLAIMED);
		assertThat(run("timeout", BID)).isEqualTo(StepOutcome.CLAIMED);
		assertThat(run("notice", BID)).isEqualTo(StepOutcome.OUT_OF_ORDER);
		assertThat(run("timeout", BID)).isEqualTo(StepOutcome.DUPLICATE);
		assertThat(run("bid", NOTHING)).isEqualTo(StepOutcome.DUPLICATE);
		assertThat(this.steps.recordedSteps(this.auction)).containsExactlyInAnyOrder("bid", "timeout");
	}

	@Test
	void aDuplicateCarriesTheFirstResult() {
		run("bid", NOTHING);
		StepClaim again = this.steps.claim(this.auction, "bid", NOTHING, null, null, null);
		assertThat(again.outcome()).isEqualTo(StepOutcome.DUPLICATE);
		assertThat(again.storedResult()).isEqualTo("\"bid-result\"");
		assertThat(this.steps.result(this.auction, "bid", String.class)).isEqualTo("bid-result");
		assertThat(this.steps.result(this.auction, "notice", String.class)).isNull();
	}

	@Test
	void anOutOfOrderClaimReportsTheRecordedSteps() {
		run("bid", NOTHING);
		run("notice", BID);
		StepClaim late = this.steps.claim(this.auction, "timeout", BID, null, null, null);
		assertThat(late.outcome()).isEqualTo(StepOutcome.OUT_OF_ORDER);
		assertThat(late.doneSteps()).containsExactlyInAnyOrder("bid", "notice");
	}

	@Test
	void aRunningStepIsInProgressForItsDuplicatesAndForStepsThatDependOnIt() {
		StepClaim bid = this.steps.claim(this.auction, "bid", NOTHING, null, null, null);
		assertThat(bid.outcome()).isEqualTo(StepOutcome.CLAIMED);
		assertThat(this.steps.claim(this.auction, "bid", NOTHING, null)).isEqualTo(StepOutcome.IN_PROGRESS);
		StepClaim notice = this.steps.claim(this.auction, "notice", BID, null, null, null);
		assertThat(notice.outcome()).isEqualTo(StepOutcome.IN_PROGRESS);
		assertThat(notice.inProgressSteps()).containsExactly("bid");
		this.steps.complete(bid, 1);
		assertThat(this.steps.claim(this.auction, "notice", BID, null)).isEqualTo(StepOutcome.CLAIMED);
		// notice runs: timeout cannot be decided until notice completes or is abandoned
		assertThat(this.steps.claim(this.auction, "timeout", BID, null)).isEqualTo(StepOutcome.IN_PROGRESS);
		this.steps.abandon(this.auction, "notice");
		assertThat(this.steps.claim(this.auction, "timeout", BID, null)).isEqualTo(StepOutcome.CLAIMED);
	}

	@Test
	void anAbandonedClaimLetsARetryRun() {
		StepClaim first = this.steps.claim(this.auction, "bid", NOTHING, null, null, null);
		this.steps.abandon(first);
		assertThat(this.steps.recordedSteps(this.auction)).isEmpty();
		StepClaim retry = this.steps.claim(this.auction, "bid", NOTHING, null, null, null);
		assertThat(retry.outcome()).isEqualTo(StepOutcome.CLAIMED);
		// a stale holder cannot remove the claim of the retry
		this.steps.abandon(first);
		assertThat(this.steps.claim(this.auction, "bid", NOTHING, null)).isEqualTo(StepOutcome.IN_PROGRESS);
	}

	@Test
	void anInterruptedHolderStillAbandonsItsClaimAndKeepsItsInterrupt() {
		StepClaim claim = this.steps.claim(this.auction, "bid", NOTHING, null, null, null);
		Thread.currentThread().interrupt();
		try {
			this.steps.abandon(claim);
		}
		finally {
			assertThat(Thread.interrupted()).as("the interrupt is kept for the caller").isTrue();
		}
		assertThat(this.steps.claim(this.auction, "bid", NOTHING, null)).isEqualTo(StepOutcome.CLAIMED);
	}

	@Test
	void aCrashedHoldersClaimEndsWithItsLease() {
		RedisIdempotentSteps shortLease = steps(Duration.ofSeconds(1));
		assertThat(shortLease.claim(this.auction, "bid", NOTHING, null)).isEqualTo(StepOutcome.CLAIMED);
		assertThat(shortLease.claim(this.auction, "bid", NOTHING, null)).isEqualTo(StepOutcome.IN_PROGRESS);
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> shortLease.claim(this.auction, "bid", NOTHING, null) == StepOutcome.CLAIMED);
	}

	@Test
	void aFingerprintRefusesTheSameKeyWithAnotherPayload() {
		StepClaim first = this.steps.claim(this.auction, "request", NOTHING, null, null, "print-a");
		assertThatExceptionOfType(IdempotencyKeyReusedException.class)
			.isThrownBy(() -> this.steps.claim(this.auction, "request", NOTHING, null, null, "print-b"))
			.withMessageContaining(this.auction);
		this.steps.complete(first, "created");
		assertThat(this.steps.claim(this.auction, "request", NOTHING, null, null, "print-a").storedResult())
			.isEqualTo("\"created\"");
		assertThatExceptionOfType(IdempotencyKeyReusedException.class)
			.isThrownBy(() -> this.steps.claim(this.auction, "request", NOTHING, null, null, "print-b"));
	}

	@Test
	void thirtyTwoConcurrentClaimsOfOneStepClaimItOnce() throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(32);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<StepOutcome>> outcomes = new ArrayList<>();
			for (int i = 0; i < 32; i++) {
				outcomes.add(pool.submit(() -> {
					start.await();
					return this.steps.claim(this.auction, "bid", NOTHING, null);
				}));
			}
			start.countDown();
			int claimed = 0;
			for (Future<StepOutcome> outcome : outcomes) {
				StepOutcome value = outcome.get();
				assertThat(value).isIn(StepOutcome.CLAIMED, StepOutcome.IN_PROGRESS);
				claimed += (value == StepOutcome.CLAIMED) ? 1 : 0;
			}
			assertThat(claimed).isEqualTo(1);
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void aClaimAndACompletionAreOneRoundTripEachAndTheKeysExpire() {
		// scripts the node has not seen yet cost a NOSCRIPT answer once
		StepClaim warmUp = this.steps.claim(this.auction, "warm-up", NOTHING, Duration.ofHours(1), null, null);
		this.steps.complete(warmUp, "done");
		StepClaim[] claim = new StepClaim[1];
		CommandLog claiming = CommandLog.record(this.topology.server(), () -> claim[0] = this.steps.claim(this.auction,
				"bid", Set.of("warm-up"), Duration.ofHours(1), null, null));
		assertThat(claiming.roundTrips()).isEqualTo(1);
		assertThat(claim[0].outcome()).isEqualTo(StepOutcome.CLAIMED);
		CommandLog completing = CommandLog.record(this.topology.server(), () -> this.steps.complete(claim[0], "done"));
		assertThat(completing.roundTrips()).isEqualTo(1);
		RedisKeyspace.Key key = new RedisKeyspace("redkit-test").key("idempotency").tag(this.auction);
		for (String part : List.of("state", "results")) {
			long ttl = this.runner.template().getExpire(key.part(part).build());
			assertThat(ttl).isBetween(3000L, 3600L);
		}
	}

}
