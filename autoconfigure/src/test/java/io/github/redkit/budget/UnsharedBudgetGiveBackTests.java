package io.github.redkit.budget;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.function.LongSupplier;

import io.github.redkit.budget.internal.BudgetAllowance;
import io.github.redkit.budget.internal.RedisBudgets;
import io.github.redkit.core.OneConnectionPool;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.region.internal.RedisRegionalBudgets;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A budget's give-back (the unused part of a local allowance's batch when the application
 * stops, a reservation's release, a regional budget's too) whose timeout passes while it
 * waits for a connection the factory does not share is still sent once one frees: balance
 * + spent = the budget to the unit, not the batch or the reservation spent for good (or
 * until its ttl).
 */
class UnsharedBudgetGiveBackTests {

	private static final Duration TIMEOUT = Duration.ofMillis(300);

	private static final long BUDGET = 100;

	@PrivateRedis
	private static RedisServer redis;

	private final OneConnectionPool pool = OneConnectionPool.on(redis);

	private final RedisScriptRunner runner = new RedisScriptRunner(this.pool.factory());

	private final String budgetId = "b-" + UUID.randomUUID();

	private final RedisBudgets budgets = new RedisBudgets(this.runner, new RedisKeyspace("ubg-" + UUID.randomUUID()),
			TIMEOUT, Duration.ofHours(1), RedkitMetrics.NONE, RedkitObservations.NONE,
			Map.of(this.budgetId, new BudgetAllowance(30, Duration.ofMinutes(10))));

	private final RedisRegionalBudgets regional = new RedisRegionalBudgets(this.runner, Map.of(),
			new RedisKeyspace("urg-" + UUID.randomUUID()), "eu", 1_000, Duration.ofHours(1), TIMEOUT);

	@AfterEach
	void closePool() {
		this.pool.close();
	}

	@Test
	void aBatchGivenBackAtTheStopWhileThePoolIsHeldIsGivenBackOnceItFrees() throws Exception {
		this.budgets.start();
		createWarm();
		assertThat(this.budgets.spend(this.budgetId, 1).applied()).isTrue();
		// longer than the stop waits for the give-back (5 attempts of 300 ms)
		Thread borrower = this.pool.hold(5);
		this.budgets.stop();
		borrower.join(15_000);
		await("the batch's unused 29 given back once the pool's connection freed").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(50))
			.ignoreExceptions()
			.untilAsserted(() -> assertThat(this.budgets.remaining(this.budgetId)).isEqualTo(BUDGET - 1));
	}

	@Test
	void aReleaseThatTimedOutWaitingForThePoolStillGivesTheReservationBack() throws Exception {
		createWarm();
		Reservation reservation = this.budgets.reserve(this.budgetId, 10, Duration.ofHours(1)).orElseThrow();
		assertGivenBackOnceThePoolFrees(() -> this.budgets.release(reservation),
				() -> this.budgets.remaining(this.budgetId));
	}

	@Test
	void aRegionalReleaseThatTimedOutWaitingForThePoolStillGivesTheReservationBack() throws Exception {
		await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
			this.regional.create(this.budgetId, BUDGET);
			assertThat(this.regional.remaining(this.budgetId)).isEqualTo(BUDGET);
		});
		Reservation reservation = this.regional
			.reserve(this.budgetId, 10, Duration.ofHours(1), "r-" + UUID.randomUUID())
			.orElseThrow();
		assertThat(this.regional.remaining(this.budgetId)).isEqualTo(BUDGET - 10);
		assertGivenBackOnceThePoolFrees(() -> this.regional.release(reservation),
				() -> this.regional.remaining(this.budgetId));
	}

	// created, and the script loaded: a cold first call may take longer than the timeout
	private void createWarm() {
		await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
			this.budgets.create(this.budgetId, BUDGET);
			assertThat(this.budgets.remaining(this.budgetId)).isEqualTo(BUDGET);
		});
	}

	/**
	 * A release that times out waiting for the pool's only connection, held by another
	 * borrower, and the whole budget back once that connection frees.
	 */
	private void assertGivenBackOnceThePoolFrees(ThrowingCallable release, LongSupplier remaining)
			throws InterruptedException {
		Thread borrower = this.pool.hold(2);
		assertThatExceptionOfType(DataAccessException.class).as("the release timed out waiting for the pool")
			.isThrownBy(release);
		borrower.join(15_000);
		await("the reservation given back once the pool's connection freed").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.ignoreExceptions()
			.untilAsserted(() -> assertThat(remaining.getAsLong()).isEqualTo(BUDGET));
	}

}
