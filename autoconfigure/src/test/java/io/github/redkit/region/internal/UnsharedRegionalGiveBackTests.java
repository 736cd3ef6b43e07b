package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import io.github.redkit.budget.Reservation;
import io.github.redkit.core.OneConnectionPool;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A regional budget's release whose timeout passes while it waits for a connection the
 * factory does not share is still sent once one frees: the reservation is given back at
 * once, not held until its ttl.
 */
class UnsharedRegionalGiveBackTests {

	private static final Duration TIMEOUT = Duration.ofMillis(300);

	private static final long BUDGET = 100;

	@PrivateRedis
	private static RedisServer redis;

	private final OneConnectionPool pool = OneConnectionPool.on(redis);

	private final RedisRegionalBudgets budgets = new RedisRegionalBudgets(new RedisScriptRunner(this.pool.factory()),
			Map.of(), new RedisKeyspace("urg-" + UUID.randomUUID()), "eu", 1_000, Duration.ofHours(1), TIMEOUT);

	private final String name = "b-" + UUID.randomUUID();

	@AfterEach
	void closePool() {
		this.pool.close();
	}

	@Test
	void aReleaseThatTimedOutWaitingForThePoolStillGivesTheReservationBack() throws Exception {
		// created, and the script loaded: a cold first call may take longer than the
		// timeout
		await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
			this.budgets.create(this.name, BUDGET);
			assertThat(this.budgets.remaining(this.name)).isEqualTo(BUDGET);
		});
		Reservation reservation = this.budgets.reserve(this.name, 10, Duration.ofHours(1), "r-" + UUID.randomUUID())
			.orElseThrow();
		assertThat(this.budgets.remaining(this.name)).isEqualTo(BUDGET - 10);
		Thread borrower = this.pool.hold(2);
		assertThatExceptionOfType(DataAccessException.class).as("the release timed out waiting for the pool")
			.isThrownBy(() -> this.budgets.release(reservation));
		borrower.join(15_000);
		await("the reservation given back once the pool's connection freed").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.ignoreExceptions()
			.untilAsserted(() -> assertThat(this.budgets.remaining(this.name)).isEqualTo(BUDGET));
	}

}
