package io.github.redkit.budget;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.budget.internal.RedisBudgets;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.CommandLog;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class BudgetsTests {

	@Parameter
	RedisTopology topology;

	private Budgets budgets;

	private String campaign;

	@BeforeEach
	void setUp() {
		this.budgets = new RedisBudgets(new RedisScriptRunner(this.topology.connectionFactory()),
				new RedisKeyspace("redkit-test"), Duration.ofSeconds(5), Duration.ofHours(1), RedkitMetrics.NONE,
				RedkitObservations.NONE);
		this.campaign = "campaign:" + UUID.randomUUID();
	}

	@ParameterizedTest
	@ValueSource(longs = { Budgets.MAX_AMOUNT, 100_000_000_000_000L, 123_456_789_012_345L, 1_000_000_000_000_000L })
	void largeBalancesSpendRefundAndReplayExactly(long initial) {
		this.budgets.create(this.campaign, initial);
		assertThat(this.budgets.spend(this.campaign, 1, "op-1")).isEqualTo(new SpendResult(true, initial - 1));
		assertThat(this.budgets.spend(this.campaign, 1, "op-1")).as("replayed")
			.isEqualTo(new SpendResult(true, initial - 1));
		assertThat(this.budgets.refund(this.campaign, 1, "op-2")).isEqualTo(new SpendResult(true, initial));
		assertThat(this.budgets.refund(this.campaign, 1, "op-2")).as("replayed")
			.isEqualTo(new SpendResult(true, initial));
		assertThat(this.budgets.spend(this.campaign, initial, "op-3")).isEqualTo(new SpendResult(true, 0));
		assertThat(this.budgets.spend(this.campaign, initial, "op-3")).as("replayed")
			.isEqualTo(new SpendResult(true, 0));
		assertThat(this.budgets.remaining(this.campaign)).isZero();
	}

	@Test
	void aRefundCannotTakeABalancePastTheLargestAmount() {
		this.budgets.create(this.campaign, Budgets.MAX_AMOUNT - 5);
		assertThatExceptionOfType(BudgetOverflowException.class)
			.isThrownBy(() -> this.budgets.refund(this.campaign, 6, "op-1"))
			.withMessageContaining(this.campaign)
			.withMessageContaining(Long.toString(Budgets.MAX_AMOUNT));
		assertThat(this.budgets.remaining(this.campaign)).as("nothing changed").isEqualTo(Budgets.MAX_AMOUNT - 5);
		assertThat(this.budgets.refund(this.campaign, 5, "op-1")).as("the id was not used up")
			.isEqualTo(new SpendResult(true, Budgets.MAX_AMOUNT));
	}

	@Test
	void openReservationsCountAgainstTheLargestAmount() {
		this.budgets.create(this.campaign, Budgets.MAX_AMOUNT - 5);
		Reservation held = this.budgets.reserve(this.campaign, 100, Duration.ofMinutes(1)).orElseThrow();
		assertThatExceptionOfType(BudgetOverflowException.class).as("the reserved 100 would come back on release")
			.isThrownBy(() -> this.budgets.refund(this.campaign, 6, "op-1"));
		this.budgets.release(held);
		assertThat(this.budgets.remaining(this.campaign)).isEqualTo(Budgets.MAX_AMOUNT - 5);
	}

	@Test
	void aRetriedReserveWithTheSameOperationIdReservesOnce() {
		this.budgets.create(this.campaign, 100);
		Reservation first = this.budgets.reserve(this.campaign, 30, Duration.ofMinutes(1), "r-1").orElseThrow();
		Reservation retried = this.budgets.reserve(this.campaign, 30, Duration.ofMinutes(1), "r-1").orElseThrow();
		assertThat(retried).isEqualTo(first);
		assertThat(this.budgets.remaining(this.campaign)).isEqualTo(70);
		assertThat(this.budgets.commit(first, 20)).isEqualTo(new SpendResult(true, 80));
		assertThat(this.budgets.reserve(this.campaign, 30, Duration.ofMinutes(1), "r-1")).as("replayed after commit")
			.contains(first);
		assertThat(this.budgets.remaining(this.campaign)).isEqualTo(80);
		assertThat(this.budgets.reserve(this.campaign, 30, Duration.ofMinutes(1), "r-2")).get().isNotEqualTo(first);
		assertThat(this.budgets.remaining(this.campaign)).isEqualTo(50);
	}

	@Test
	void aRefusedReserveIsReplayedAsRefused() {
		this.budgets.create(this.campaign, 10);
		assertThat(this.budgets.reserve(this.campaign, 30, Duration.ofMinutes(1), "r-1")).isEmpty();
		this.budgets.refund(this.campaign, 50, "top-up");
		assertThat(this.budgets.reserve(this.campaign, 30, Duration.ofMinutes(1), "r-1")).as("the first answer")
			.isEmpty();
		assertThat(this.budgets.remaining(this.campaign)).isEqualTo(60);
	}

	@Test
	void createsOnceUnlessAskedToReplace() {
		assertThat(this.budgets.create(this.campaign, 1000)).isTrue();
		assertThat(this.budgets.create(this.campaign, 5)).isFalse();
		assertThat(this.budgets.remaining(this.campaign)).isEqualTo(1000);
		assertThat(this.budgets.create(this.campaign, 5, true)).isTrue();
		assertThat(this.budgets.remaining(this.campaign)).isEqualTo(5);
		assertThat(this.budgets.delete(this.campaign)).isTrue();
		assertThatExceptionOfType(BudgetNotFoundException.class).isThrownBy(() -> this.budgets.remaining(this.campaign))
			.withMessageContaining(this.campaign);
	}

	@Test
	void spendsOnlyWhatIsThereNeverPartially() {
		this.budgets.create(this.campaign, 100);
		assertThat(this.budgets.spend(this.campaign, 60)).isEqualTo(new SpendResult(true, 40));
		assertThat(this.budgets.spend(this.campaign, 41)).isEqualTo(new SpendResult(false, 40));
		assertThat(this.budgets.spend(this.campaign, 40)).isEqualTo(new SpendResult(true, 0));
		assertThat(this.budgets.spend(this.campaign, 1)).isEqualTo(new SpendResult(false, 0));
	}

	@Test
	void refusesInvalidAmountsAndUnknownBudgets() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.budgets.spend(this.campaign, 0));
		assertThatIllegalArgumentException().isThrownBy(() -> this.budgets.spend(this.campaign, -5));
		assertThatIllegalArgumentException().isThrownBy(() -> this.budgets.create(this.campaign, 1L << 60));
		assertThatExceptionOfType(BudgetNotFoundException.class).isThrownBy(() -> this.budgets.spend(this.campaign, 1));
	}

	@Test
	void anOperationIdAppliesOnceAndRepeatsReturnTheFirstResult() {
		this.budgets.create(this.campaign, 100);
		assertThat(this.budgets.spend(this.campaign, 30, "op-1")).isEqualTo(new SpendResult(true, 70));
		this.budgets.spend(this.campaign, 10);
		assertThat(this.budgets.spend(this.campaign, 30, "op-1")).isEqualTo(new SpendResult(true, 70));
		assertThat(this.budgets.refund(this.campaign, 30, "op-1")).isEqualTo(new SpendResult(true, 90));
		assertThat(this.budgets.refund(this.campaign, 30, "op-1")).isEqualTo(new SpendResult(true, 90));
		assertThat(this.budgets.remaining(this.campaign)).isEqualTo(90);
		assertThat(this.budgets.spend(this.campaign, 500, "op-2")).isEqualTo(new SpendResult(false, 90));
		assertThat(this.budgets.spend(this.campaign, 500, "op-2")).isEqualTo(new SpendResult(false, 90));
	}

	@Test
	void reservesCommitsAndReleases() {
		this.budgets.create(this.campaign, 100);
		Reservation bid = this.budgets.reserve(this.campaign, 70, Duration.ofMinutes(1)).orElseThrow();
		assertThat(this.budgets.remaining(this.campaign)).isEqualTo(30);
		assertThat(this.budgets.reserve(this.campaign, 31, Duration.ofMinutes(1))).isEmpty();
		assertThat(this.budgets.commit(bid, 50)).isEqualTo(new SpendResult(true, 50));
		assertThat(this.budgets.commit(bid, 50)).isEqualTo(new SpendResult(true, 50));
		this.budgets.release(bid);
		assertThat(this.budgets.remaining(this.campaign)).isEqualTo(50);
		Reservation other = this.budgets.reserve(this.campaign, 20, Duration.ofMinutes(1)).orElseThrow();
		this.budgets.release(other);
		this.budgets.release(other);
		assertThat(this.budgets.commit(other, 20).applied()).isFalse();
		assertThat(this.budgets.remaining(this.campaign)).isEqualTo(50);
		assertThatIllegalArgumentException().isThrownBy(() -> this.budgets.commit(other, 21));
	}

	@Test
	void expiredReservationsReturnTheirMoney() {
		this.budgets.create(this.campaign, 100);
		Optional<Reservation> forgotten = this.budgets.reserve(this.campaign, 60, Duration.ofMillis(300));
		assertThat(forgotten).isPresent();
		this.budgets.reserve(this.campaign, 10, Duration.ofMinutes(10)).orElseThrow();
		assertThat(this.budgets.remaining(this.campaign)).isEqualTo(30);
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> this.budgets.remaining(this.campaign) == 90);
		assertThat(this.budgets.commit(forgotten.get(), 60).applied()).isFalse();
		assertThat(this.budgets.remaining(this.campaign)).isEqualTo(90);
	}

	@Test
	void sixteenThreadsSpendingUntilTheBudgetIsGoneNeverOverspend() throws Exception {
		long initial = 50_000;
		this.budgets.create(this.campaign, initial);
		AtomicLong applied = new AtomicLong();
		ExecutorService pool = Executors.newFixedThreadPool(16);
		try {
			List<Future<?>> workers = new ArrayList<>();
			for (int i = 0; i < 16; i++) {
				workers.add(pool.submit(() -> {
					int refusals = 0;
					while (refusals < 20) {
						long amount = ThreadLocalRandom.current().nextLong(1, 200);
						SpendResult result = this.budgets.spend(this.campaign, amount);
						assertThat(result.remaining()).isNotNegative();
						if (result.applied()) {
							applied.addAndGet(amount);
						}
						else {
							refusals++;
						}
					}
				}));
			}
			for (Future<?> worker : workers) {
				worker.get();
			}
		}
		finally {
			pool.shutdownNow();
		}
		long remaining = this.budgets.remaining(this.campaign);
		assertThat(applied.get()).isLessThanOrEqualTo(initial);
		assertThat(remaining).isNotNegative().isEqualTo(initial - applied.get()).isLessThan(200);
	}

	@Test
	void concurrentDuplicatesOfAnOperationApplyOnce() throws Exception {
		this.budgets.create(this.campaign, 10_000);
		ExecutorService pool = Executors.newFixedThreadPool(16);
		AtomicInteger distinctResults = new AtomicInteger();
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<SpendResult>> results = new ArrayList<>();
			for (int i = 0; i < 64; i++) {
				String operation = "op-" + (i % 4);
				results.add(pool.submit(() -> {
					start.await();
					return this.budgets.spend(this.campaign, 100, operation);
				}));
			}
			start.countDown();
			for (Future<SpendResult> result : results) {
				assertThat(result.get().applied()).isTrue();
			}
			distinctResults.set((int) results.stream().map(this::get).distinct().count());
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(distinctResults.get()).isEqualTo(4);
		assertThat(this.budgets.remaining(this.campaign)).isEqualTo(10_000 - 4 * 100);
	}

	private SpendResult get(Future<SpendResult> future) {
		try {
			return future.get();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Test
	void everyDecisionIsOneRoundTrip() {
		this.budgets.create(this.campaign, 1000);
		Reservation reservation = this.budgets.reserve(this.campaign, 10, Duration.ofMinutes(1)).orElseThrow();
		assertThat(CommandLog.record(this.topology.server(), () -> this.budgets.spend(this.campaign, 5)).roundTrips())
			.isEqualTo(1);
		assertThat(CommandLog.record(this.topology.server(), () -> this.budgets.spend(this.campaign, 5, "op"))
			.roundTrips()).isEqualTo(1);
		assertThat(CommandLog.record(this.topology.server(), () -> this.budgets.commit(reservation, 3)).roundTrips())
			.isEqualTo(1);
	}

}
