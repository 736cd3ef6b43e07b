package io.github.redkit.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import io.github.redkit.budget.internal.RedisBudgets;
import io.github.redkit.concurrency.ConcurrencyPermit;
import io.github.redkit.concurrency.ConcurrencyPolicy;
import io.github.redkit.concurrency.internal.ConcurrencyLimitSettings;
import io.github.redkit.concurrency.internal.RedisConcurrencyLimiter;
import io.github.redkit.core.internal.MicrometerRedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.idempotency.StepOutcome;
import io.github.redkit.idempotency.internal.IdempotencySettings;
import io.github.redkit.idempotency.internal.RedisIdempotentSteps;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.LockSettings;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.pubsub.internal.JsonChannelPublisher;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import tools.jackson.databind.json.JsonMapper;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;

/**
 * The decisions of the other capabilities as observations, with the shared default
 * convention.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class RedkitObservationsTests {

	@Parameter
	RedisTopology topology;

	private final TestObservationRegistry registry = TestObservationRegistry.create();

	private final RedkitObservations observations = new MicrometerRedkitObservations(() -> this.registry, List.of());

	private final RedisKeyspace keyspace = new RedisKeyspace("obs-test");

	private final String id = UUID.randomUUID().toString();

	private RedisScriptRunner runner;

	@BeforeEach
	void createRunner() {
		this.runner = new RedisScriptRunner(this.topology.connectionFactory());
	}

	@Test
	void concurrencyPermits() {
		RedisConcurrencyLimiter limiter = new RedisConcurrencyLimiter(this.runner, this.keyspace,
				Map.of("jobs", ConcurrencyPolicy.of(1)),
				new ConcurrencyLimitSettings(LimitFailureMode.DENY, Duration.ofSeconds(5)), RedkitMetrics.NONE,
				this.observations);
		Optional<ConcurrencyPermit> first = limiter.tryAcquire("jobs", this.id);
		limiter.tryAcquire("jobs", this.id);
		first.ifPresent(ConcurrencyPermit::close);
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("redkit.concurrency.acquire", 2)
			.hasAnObservation((observation) -> observation.hasLowCardinalityKeyValue("redkit.limit", "jobs")
				.hasLowCardinalityKeyValue("redkit.outcome", "acquired"))
			.hasAnObservation((observation) -> observation.hasLowCardinalityKeyValue("redkit.outcome", "refused"));
	}

	@Test
	void lockAcquisitionsAndHolds() {
		RedisDistributedLocks locks = new RedisDistributedLocks(this.runner, this.keyspace,
				new LockSettings(Duration.ofSeconds(30), Duration.ofSeconds(2), Duration.ofMillis(50)),
				RedkitMetrics.NONE, this.observations, List.of());
		try (LockHandle held = locks.tryLock("orders", this.id, Duration.ZERO, null).orElseThrow()) {
			locks.tryLock("orders", this.id, Duration.ZERO, null);
		}
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("redkit.lock.acquisition", 2)
			.hasAnObservation((observation) -> observation.hasLowCardinalityKeyValue("redkit.lock", "orders")
				.hasLowCardinalityKeyValue("redkit.outcome", "acquired"))
			.hasAnObservation((observation) -> observation.hasLowCardinalityKeyValue("redkit.outcome", "not-acquired"))
			.hasNumberOfObservationsWithNameEqualTo("redkit.lock.hold", 1)
			.hasAnObservation((observation) -> observation.hasNameEqualTo("redkit.lock.hold")
				.hasLowCardinalityKeyValue("redkit.lock", "orders")
				.hasLowCardinalityKeyValue("redkit.outcome", "released"));
	}

	@Test
	void stepClaims() {
		RedisIdempotentSteps steps = new RedisIdempotentSteps(this.runner, this.keyspace, JsonMapper.builder().build(),
				new IdempotencySettings(Duration.ofHours(1), Duration.ofSeconds(30), Duration.ofSeconds(5)),
				RedkitMetrics.NONE, this.observations);
		org.assertj.core.api.Assertions.assertThat(steps.claim(this.id, "charge", null, null))
			.isEqualTo(StepOutcome.CLAIMED);
		steps.claim(this.id, "ship", Set.of("pack"), null);
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("redkit.idempotency.claim", 2)
			.hasAnObservation((observation) -> observation.hasLowCardinalityKeyValue("redkit.step", "charge")
				.hasLowCardinalityKeyValue("redkit.outcome", "claimed"))
			.hasAnObservation((observation) -> observation.hasLowCardinalityKeyValue("redkit.step", "ship")
				.hasLowCardinalityKeyValue("redkit.outcome", "out_of_order"));
	}

	@Test
	void budgetChangesAreNamedByTheirCommandNeverByTheBudget() {
		RedisBudgets budgets = new RedisBudgets(this.runner, this.keyspace, Duration.ofSeconds(5), Duration.ofHours(1),
				RedkitMetrics.NONE, this.observations);
		budgets.create(this.id, 10);
		budgets.spend(this.id, 7);
		budgets.spend(this.id, 7);
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("redkit.budget.apply", 3)
			.hasAnObservation((observation) -> observation.hasLowCardinalityKeyValue("redkit.operation", "spend")
				.hasLowCardinalityKeyValue("redkit.outcome", "applied"))
			.hasAnObservation((observation) -> observation.hasLowCardinalityKeyValue("redkit.outcome", "refused"));
	}

	@Test
	void publications() {
		JsonChannelPublisher publisher = new JsonChannelPublisher(this.runner.template(), JsonMapper.builder().build(),
				RedkitMetrics.NONE, this.observations);
		publisher.publish("orders-" + this.id, Map.of("n", 1));
		assertThat(this.registry).hasSingleObservationThat()
			.hasNameEqualTo("redkit.pubsub.publish")
			.hasLowCardinalityKeyValue("redkit.operation", "publish")
			.hasLowCardinalityKeyValue("redkit.outcome", "unheard");
	}

}
