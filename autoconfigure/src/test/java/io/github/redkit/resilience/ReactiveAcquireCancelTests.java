package io.github.redkit.resilience;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.idempotency.IdempotencyAutoConfiguration;
import io.github.redkit.budget.ReactiveBudgets;
import io.github.redkit.budget.Reservation;
import io.github.redkit.budget.internal.DefaultReactiveBudgets;
import io.github.redkit.budget.internal.RedisBudgets;
import io.github.redkit.core.ClientPause;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.idempotency.IdempotentStep;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.ReactiveIdempotentSteps;
import io.github.redkit.idempotency.StepOutcome;
import io.github.redkit.idempotency.internal.DefaultReactiveIdempotentSteps;
import io.github.redkit.idempotency.internal.IdempotencySettings;
import io.github.redkit.idempotency.internal.RedisIdempotentSteps;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.LockSettings;
import io.github.redkit.lock.ReactiveDistributedLocks;
import io.github.redkit.lock.internal.DefaultReactiveDistributedLocks;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A subscriber that gives up while a reactive acquire's script is in flight (here a
 * timeout; a cancelled subscription is the same signal): Redis runs the script anyway,
 * and what it takes is given back, so nothing stays held and the next acquire succeeds.
 * {@code CLIENT PAUSE} holds the script on the server to open the window. The concurrency
 * permits' own test is {@code ReactiveConcurrencyCancelTests}.
 */
@Tag("tests-apart")
class ReactiveAcquireCancelTests {

	private static final Duration PAUSE = Duration.ofMillis(1500);

	private static final Duration GIVE_UP = Duration.ofMillis(200);

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	@PrivateRedis
	private static RedisServer redis;

	private LettuceConnectionFactory connectionFactory;

	private RedisDistributedLocks locks;

	private RedisBudgets budgets;

	private RedisIdempotentSteps steps;

	private final String name = "cancel-" + UUID.randomUUID();

	@BeforeEach
	void create() {
		this.connectionFactory = redis.createConnectionFactory();
		RedisScriptRunner runner = new RedisScriptRunner(this.connectionFactory);
		RedisKeyspace keyspace = new RedisKeyspace("cancel");
		this.locks = new RedisDistributedLocks(runner, keyspace,
				new LockSettings(Duration.ofSeconds(30), TIMEOUT, Duration.ofMillis(100)), RedkitMetrics.NONE,
				RedkitObservations.NONE, List.of());
		this.budgets = new RedisBudgets(runner, keyspace, TIMEOUT, Duration.ofHours(1), RedkitMetrics.NONE,
				RedkitObservations.NONE);
		this.steps = new RedisIdempotentSteps(runner, keyspace, JsonMapper.builder().build(),
				new IdempotencySettings(Duration.ofHours(1), Duration.ofSeconds(30), TIMEOUT), RedkitMetrics.NONE,
				RedkitObservations.NONE);
		// connected before the pause, so that only the script waits
		this.budgets.create(this.name, 100);
	}

	@AfterEach
	void close() {
		this.locks.destroy();
		this.connectionFactory.destroy();
	}

	@Test
	void aLockTakenForACancelledTryLockIsReleased() {
		ReactiveDistributedLocks reactive = new DefaultReactiveDistributedLocks(this.locks);
		givenUpDuringThePause(reactive.tryLock("cancel", this.name, Duration.ZERO, null));
		await("released").atMost(TIMEOUT).until(() -> {
			LockHandle next = this.locks.tryLock(this.name, Duration.ZERO, null).orElse(null);
			if (next != null) {
				next.close();
			}
			return next != null;
		});
	}

	@Test
	void aLockTakenForACancelledWithLockIsReleasedAndItsActionNeverRuns() {
		ReactiveDistributedLocks reactive = new DefaultReactiveDistributedLocks(this.locks);
		List<String> ran = new CopyOnWriteArrayList<>();
		givenUpDuringThePause(
				reactive.withLock(this.name, Duration.ZERO, null, () -> Flux.just("ran").doOnNext(ran::add)));
		await("released").atMost(TIMEOUT).until(() -> {
			LockHandle next = this.locks.tryLock(this.name, Duration.ZERO, null).orElse(null);
			if (next != null) {
				next.close();
			}
			return next != null;
		});
		assertThat(ran).isEmpty();
	}

	@Test
	void aStepClaimedForACancelledClaimIsAbandoned() {
		ReactiveIdempotentSteps reactive = new DefaultReactiveIdempotentSteps(this.steps);
		givenUpDuringThePause(reactive.claim(this.name, "charge", Set.of(), null));
		await("abandoned").atMost(TIMEOUT)
			.until(() -> this.steps.claim(this.name, "charge", Set.of(), null) == StepOutcome.CLAIMED);
	}

	@Test
	void aReservationTakenForACancelledReserveIsReleased() {
		ReactiveBudgets reactive = new DefaultReactiveBudgets(this.budgets);
		givenUpDuringThePause(reactive.reserve(this.name, 100, Duration.ofHours(1)));
		await("released").atMost(TIMEOUT).until(() -> this.budgets.remaining(this.name) == 100);
		assertThat(this.budgets.reserve(this.name, 100, Duration.ofHours(1))).isPresent();
	}

	@Test
	void aReservationTakenForACancelledReserveWithAnOperationIdIsKeptForItsRetry() {
		ReactiveBudgets reactive = new DefaultReactiveBudgets(this.budgets);
		givenUpDuringThePause(reactive.reserve(this.name, 100, Duration.ofHours(1), "op-1"));
		Reservation retried = reactive.reserve(this.name, 100, Duration.ofHours(1), "op-1").block(TIMEOUT);
		assertThat(retried).isNotNull();
		assertThat(this.budgets.remaining(this.name)).isZero();
		assertThat(this.budgets.commit(retried).applied()).as("the retry holds the reservation").isTrue();
	}

	@Test
	void aStepClaimedForACancelledAnnotatedMethodIsAbandonedAndTheMethodNeverRuns() {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(StepServices.class)
			.web(WebApplicationType.NONE)
			.properties(redis.springProperties())
			.properties("redkit.key-prefix=cancel-step-" + UUID.randomUUID(), "redkit.idempotency.timeout=10s",
					"spring.data.redis.timeout=10s", "spring.main.banner-mode=off")
			.run()) {
			Payments payments = context.getBean(Payments.class);
			IdempotentSteps steps = context.getBean(IdempotentSteps.class);
			// connected before the pause, so that only the claim waits
			steps.recordedSteps("warm-up");
			givenUpDuringThePause(payments.charge(this.name));
			await("abandoned").atMost(TIMEOUT)
				.until(() -> steps.claim(this.name, "charge", Set.of(), null) == StepOutcome.CLAIMED);
			assertThat(payments.calls()).as("the method of a cancelled call never ran").isZero();
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
			RedkitAutoConfiguration.class, IdempotencyAutoConfiguration.class })
	static class StepServices {

		@Bean
		Payments payments() {
			return new Payments();
		}

	}

	static class Payments {

		private final AtomicInteger calls = new AtomicInteger();

		int calls() {
			return this.calls.get();
		}

		@IdempotentStep(operation = "#order", step = "charge")
		Mono<String> charge(String order) {
			return Mono.fromSupplier(() -> {
				this.calls.incrementAndGet();
				return "charged " + order;
			});
		}

	}

	private void givenUpDuringThePause(Publisher<?> acquire) {
		ClientPause pause = ClientPause.start(redis, PAUSE);
		StepVerifier.create(Flux.from(acquire).timeout(GIVE_UP)).expectError(TimeoutException.class).verify(TIMEOUT);
		pause.awaitEnd();
	}

}
