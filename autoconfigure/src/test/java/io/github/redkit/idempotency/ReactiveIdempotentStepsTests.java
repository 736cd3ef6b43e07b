package io.github.redkit.idempotency;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.idempotency.internal.DefaultReactiveIdempotentSteps;
import io.github.redkit.idempotency.internal.IdempotencySettings;
import io.github.redkit.idempotency.internal.RedisIdempotentSteps;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.NonBlockingThreads;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import static org.assertj.core.api.Assertions.assertThat;
import tools.jackson.databind.json.JsonMapper;

/**
 * The reactive face of idempotent steps decides like the blocking one (the same scripts
 * and keys: one face sees what the other recorded), on subscription, and never blocks a
 * non-blocking thread (BlockHound watches).
 */
@Tag("tests-apart")
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class ReactiveIdempotentStepsTests {

	private static final Set<String> NOTHING = Set.of();

	@Parameter
	RedisTopology topology;

	private RedisIdempotentSteps blocking;

	private ReactiveIdempotentSteps steps;

	private String order;

	@BeforeAll
	static void watchForBlocking() {
		NonBlockingThreads.watch();
	}

	@BeforeEach
	void createSteps() {
		RedisScriptRunner runner = new RedisScriptRunner(this.topology.connectionFactory());
		this.blocking = new RedisIdempotentSteps(runner, new RedisKeyspace("rsteps-test"), JsonMapper.builder().build(),
				new IdempotencySettings(Duration.ofHours(1), Duration.ofSeconds(30), Duration.ofSeconds(5)),
				RedkitMetrics.NONE, RedkitObservations.NONE);
		this.steps = new DefaultReactiveIdempotentSteps(this.blocking);
		this.order = "order:" + UUID.randomUUID();
		// the first connection is made off the caller's thread; make it before the checks
		this.blocking.recordedSteps("warm-up");
	}

	/** Subscribes on a non-blocking thread and continues on one. */
	private static <T> Mono<T> onEventLoop(Mono<T> call) {
		return call.subscribeOn(Schedulers.parallel()).publishOn(Schedulers.parallel());
	}

	private StepClaim claim(String step, Set<String> after) {
		return onEventLoop(this.steps.claim(this.order, step, after, null, null, null)).block(Duration.ofSeconds(10));
	}

	@Test
	void aClaimedStepIsRecordedOnceAndThenADuplicateWithItsResult() {
		Mono<StepOutcome> assembled = this.steps.claim(this.order, "charge", NOTHING, null);
		assertThat(this.blocking.recordedSteps(this.order)).as("nothing on assembly").isEmpty();
		StepClaim claim = claim("charge", NOTHING);
		assertThat(claim.outcome()).isEqualTo(StepOutcome.CLAIMED);
		assertThat(onEventLoop(assembled).block()).as("claimed by the other subscription")
			.isEqualTo(StepOutcome.IN_PROGRESS);
		assertThat(onEventLoop(this.steps.extend(claim)).block()).isTrue();
		onEventLoop(this.steps.complete(claim, 42)).block();
		StepClaim duplicate = claim("charge", NOTHING);
		assertThat(duplicate.outcome()).isEqualTo(StepOutcome.DUPLICATE);
		assertThat(duplicate.storedResult()).isEqualTo("42");
		assertThat(onEventLoop(this.steps.result(this.order, "charge", Integer.class)).block()).isEqualTo(42);
		assertThat(onEventLoop(this.steps.recordedSteps(this.order)).block()).containsExactly("charge");
		assertThat(this.blocking.result(this.order, "charge", Integer.class)).as("the blocking face sees it")
			.isEqualTo(42);
		StepVerifier.create(onEventLoop(this.steps.result(this.order, "ship", String.class)))
			.as("not done: empty")
			.verifyComplete();
	}

	@Test
	void refusalsAreOutcomesOrTheBlockingFacesExceptions() {
		assertThat(claim("ship", Set.of("charge")).outcome()).isEqualTo(StepOutcome.OUT_OF_ORDER);
		assertThat(
				onEventLoop(this.steps.claim(this.order, "charge", NOTHING, null, null, "print-a")).block().outcome())
			.isEqualTo(StepOutcome.CLAIMED);
		StepVerifier.create(onEventLoop(this.steps.claim(this.order, "charge", NOTHING, null, null, "print-b")))
			.expectError(IdempotencyKeyReusedException.class)
			.verify(Duration.ofSeconds(10));
	}

	@Test
	void anAbandonedStepCanBeClaimedAgainAndALostClaimCannotComplete() {
		StepClaim first = claim("charge", NOTHING);
		onEventLoop(this.steps.abandon(first)).block();
		StepClaim second = claim("charge", NOTHING);
		assertThat(second.outcome()).isEqualTo(StepOutcome.CLAIMED);
		assertThat(onEventLoop(this.steps.extend(first)).block()).as("the first claim is gone").isFalse();
		StepVerifier.create(onEventLoop(this.steps.complete(first, "first")))
			.expectError(StepClaimLostException.class)
			.verify(Duration.ofSeconds(10));
		onEventLoop(this.steps.abandon(this.order, "charge")).block();
		assertThat(claim("charge", NOTHING).outcome()).isEqualTo(StepOutcome.CLAIMED);
		onEventLoop(this.steps.complete(this.order, "charge", "any")).block();
		assertThat(this.blocking.result(this.order, "charge", String.class)).isEqualTo("any");
	}

	@Test
	void concurrentClaimsOnNonBlockingThreadsClaimOnce() {
		List<StepOutcome> outcomes = Flux.range(0, 32)
			.flatMap((i) -> this.steps.claim(this.order, "charge", NOTHING, null).subscribeOn(Schedulers.parallel()))
			.publishOn(Schedulers.parallel())
			.collectList()
			.block(Duration.ofSeconds(30));
		assertThat(outcomes).hasSize(32);
		assertThat(outcomes).filteredOn((outcome) -> outcome == StepOutcome.CLAIMED).hasSize(1);
		assertThat(outcomes).filteredOn((outcome) -> outcome == StepOutcome.IN_PROGRESS).hasSize(31);
	}

}
