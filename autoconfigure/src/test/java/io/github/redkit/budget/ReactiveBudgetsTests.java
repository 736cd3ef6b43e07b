package io.github.redkit.budget;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToDoubleFunction;

import io.github.redkit.budget.internal.DefaultReactiveBudgets;
import io.github.redkit.budget.internal.RedisBudgets;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMeter;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
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
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The reactive face of budgets does what the blocking one does, on subscription, from
 * non-blocking threads (BlockHound watches), with the same exceptions and meters.
 */
@Tag("tests-apart")
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class ReactiveBudgetsTests {

	@Parameter
	RedisTopology topology;

	private final List<String> changes = new CopyOnWriteArrayList<>();

	private RedisBudgets budgets;

	private ReactiveBudgets reactive;

	private final String id = "rb-" + UUID.randomUUID();

	@BeforeAll
	static void watchForBlocking() {
		NonBlockingThreads.watch();
	}

	@BeforeEach
	void createBudgets() {
		RedisScriptRunner runner = new RedisScriptRunner(this.topology.connectionFactory());
		this.budgets = new RedisBudgets(runner, new RedisKeyspace("rb-test"), Duration.ofSeconds(5),
				Duration.ofHours(1), recording(this.changes), RedkitObservations.NONE);
		this.reactive = new DefaultReactiveBudgets(this.budgets);
		// the first connection is made off the caller's thread; make it before the checks
		this.budgets.create("warm-up", 1, true);
		this.changes.clear();
	}

	private static RedkitMetrics recording(List<String> changes) {
		return new RedkitMetrics() {

			@Override
			public void increment(RedkitMeter meter, String... tags) {
				changes.add(meter.name() + String.join(",", tags));
			}

			@Override
			public void record(RedkitMeter meter, long nanos, String... tags) {
			}

			@Override
			public <T> void gauge(RedkitMeter meter, T source, ToDoubleFunction<T> value, String... tags) {
			}

		};
	}

	/** Subscribes on a non-blocking thread and continues on one. */
	private static <T> T onEventLoop(Mono<T> call) {
		return call.subscribeOn(Schedulers.parallel()).publishOn(Schedulers.parallel()).block(Duration.ofSeconds(10));
	}

	@Test
	void everyOperationAnswersLikeTheBlockingFace() {
		Mono<Boolean> create = this.reactive.create(this.id, 100);
		assertThat(this.budgets.create(this.id + "-other", 1)).isTrue();
		assertThat(onEventLoop(create)).as("sent on subscription").isTrue();
		assertThat(onEventLoop(create)).isFalse();
		assertThat(onEventLoop(this.reactive.remaining(this.id))).isEqualTo(100);
		assertThat(onEventLoop(this.reactive.spend(this.id, 30))).isEqualTo(new SpendResult(true, 70));
		assertThat(onEventLoop(this.reactive.spend(this.id, 80))).isEqualTo(new SpendResult(false, 70));
		assertThat(onEventLoop(this.reactive.refund(this.id, 10, "r1"))).isEqualTo(new SpendResult(true, 80));
		Reservation reservation = onEventLoop(this.reactive.reserve(this.id, 50, Duration.ofMinutes(1)));
		assertThat(reservation.amount()).isEqualTo(50);
		assertThat(onEventLoop(this.reactive.reserve(this.id, 50, Duration.ofMinutes(1)))).as("too low").isNull();
		assertThat(onEventLoop(this.reactive.commit(reservation, 20))).isEqualTo(new SpendResult(true, 60));
		Reservation second = onEventLoop(this.reactive.reserve(this.id, 10, Duration.ofMinutes(1), "op-r"));
		assertThat(onEventLoop(this.reactive.reserve(this.id, 10, Duration.ofMinutes(1), "op-r")))
			.as("a retried reserve reserves once")
			.isEqualTo(second);
		onEventLoop(this.reactive.release(second));
		assertThat(this.budgets.remaining(this.id)).isEqualTo(60);
		assertThat(onEventLoop(this.reactive.delete(this.id))).isTrue();
		assertThat(this.changes).contains("redkit.budget.changesoperation,spend,outcome,applied",
				"redkit.budget.changesoperation,spend,outcome,refused",
				"redkit.budget.changesoperation,reserve,outcome,replayed",
				"redkit.budget.changesoperation,release,outcome,applied");
	}

	@Test
	void aMissingBudgetIsTheSameExceptionAsAnError() {
		assertThatExceptionOfType(BudgetNotFoundException.class)
			.isThrownBy(() -> onEventLoop(this.reactive.spend(this.id, 1, "op")));
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> onEventLoop(this.reactive.spend(this.id, 0)));
	}

	@Test
	void idempotentSpendsFromManyNonBlockingThreadsApplyOnce() {
		this.budgets.create(this.id, 1000);
		List<SpendResult> results = Flux.range(0, 50)
			.flatMap((i) -> this.reactive.spend(this.id, 100, "op-" + (i % 5)).subscribeOn(Schedulers.parallel()), 16)
			.collectList()
			.block(Duration.ofSeconds(30));
		assertThat(results).hasSize(50);
		assertThat(this.budgets.remaining(this.id)).isEqualTo(500);
		assertThat(this.changes.stream().filter((change) -> change.endsWith("spend,outcome,applied"))).hasSize(5);
		assertThat(this.changes.stream().filter((change) -> change.endsWith("spend,outcome,replayed"))).hasSize(45);
	}

	@Test
	void manyReservationsFromNonBlockingThreadsNeverBlock() {
		// a reservation's id once came from UUID.randomUUID(), whose SecureRandom reads
		// /dev/urandom now and then: on an event loop, that is a blocking call
		this.budgets.create(this.id, 1000);
		List<Reservation> reservations = Flux.range(0, 200)
			.flatMap((i) -> this.reactive.reserve(this.id, 1, Duration.ofMinutes(1)).subscribeOn(Schedulers.parallel()),
					16)
			.collectList()
			.block(Duration.ofSeconds(30));
		assertThat(reservations).hasSize(200).doesNotHaveDuplicates();
	}

	@Test
	void concurrentSpendsNeverOverspend() {
		this.budgets.create(this.id, 1000);
		List<SpendResult> results = Flux.range(0, 300)
			.flatMap((i) -> this.reactive.spend(this.id, 7).subscribeOn(Schedulers.parallel()), 64)
			.collectList()
			.block(Duration.ofSeconds(30));
		assertThat(results.stream().filter(SpendResult::applied)).hasSize(1000 / 7);
		assertThat(this.budgets.remaining(this.id)).isEqualTo(1000 % 7);
	}

	@Test
	void anUnreachableRedisIsTheBlockingFacesExceptionAsAnError() {
		LettuceConnectionFactory unreachable = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", 1),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofMillis(500)).build());
		unreachable.afterPropertiesSet();
		unreachable.start();
		try {
			RedisBudgets budgets = new RedisBudgets(new RedisScriptRunner(unreachable), new RedisKeyspace("rb-test"),
					Duration.ofSeconds(2), Duration.ofHours(1), recording(this.changes), RedkitObservations.NONE);
			Class<? extends DataAccessException> blocking = assertThatExceptionOfType(DataAccessException.class)
				.isThrownBy(() -> budgets.spend(this.id, 1))
				.actual()
				.getClass();
			assertThatExceptionOfType(blocking)
				.isThrownBy(() -> onEventLoop(new DefaultReactiveBudgets(budgets).spend(this.id, 1)));
			assertThat(this.changes).containsExactly("redkit.budget.changesoperation,spend,outcome,unavailable",
					"redkit.budget.changesoperation,spend,outcome,unavailable");
		}
		finally {
			unreachable.destroy();
		}
	}

}
