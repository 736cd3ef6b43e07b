package io.github.redkit.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

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
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
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
import static org.assertj.core.api.Assertions.assertThat;

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
		assertThat(steps.claim(this.id, "charge", null, null)).isEqualTo(StepOutcome.CLAIMED);
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

	@Test
	void anApplicationsOwnObservationsSeeEveryRateLimitDecisionAsTheySeeLocksAndBudgets() {
		RecordingObservations recording = new RecordingObservations();
		RedisRateLimiter limiter = new RedisRateLimiter(this.runner, this.keyspace,
				Map.of("api", RateLimitPolicy.slidingWindow(RateLimitWindow.of(1, Duration.ofHours(1)))),
				new RateLimitSettings(LimitFailureMode.ALLOW, Duration.ofSeconds(5), Duration.ZERO), RedkitMetrics.NONE,
				recording);
		RedisDistributedLocks locks = new RedisDistributedLocks(this.runner, this.keyspace,
				new LockSettings(Duration.ofSeconds(30), Duration.ofSeconds(2), Duration.ofMillis(50)),
				RedkitMetrics.NONE, recording, List.of());
		RedisBudgets budgets = new RedisBudgets(this.runner, this.keyspace, Duration.ofSeconds(5), Duration.ofHours(1),
				RedkitMetrics.NONE, recording);
		locks.tryLock("orders", this.id, Duration.ZERO, null).ifPresent(LockHandle::close);
		budgets.create(this.id, 10);
		limiter.tryAcquire("api", this.id);
		limiter.tryAcquireAsync("api", List.of(this.id), 1).join();
		assertThat(recording.observed).containsExactly("redkit.lock.acquisition orders", "redkit.budget.apply create",
				"redkit.ratelimit.decision api", "redkit.ratelimit.decision api (async)");
	}

	/**
	 * An application's own bean in place of Redkit's: it starts no observation of
	 * Micrometer's but records every call a capability asks it to observe.
	 */
	private static final class RecordingObservations implements RedkitObservations {

		private final List<String> observed = new CopyOnWriteArrayList<>();

		@Override
		public RedkitObservation start(RedkitObservationKind kind, String name) {
			return RedkitObservation.NONE;
		}

		@Override
		public <T, E extends Throwable> T observe(RedkitObservationKind kind, String name, Call<T, E> call,
				RedkitOutcomes<? super T> outcomes) throws E {
			this.observed.add(kind.observationName() + " " + name);
			return RedkitObservations.super.observe(kind, name, call, outcomes);
		}

		@Override
		public <T> CompletableFuture<T> observeAsync(RedkitObservationKind kind, String name,
				Supplier<CompletableFuture<T>> call, RedkitOutcomes<? super T> outcomes) {
			this.observed.add(kind.observationName() + " " + name + " (async)");
			return RedkitObservations.super.observeAsync(kind, name, call, outcomes);
		}

	}

}
