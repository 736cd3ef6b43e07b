package io.github.redkit.resilience;

import java.time.Duration;
import java.util.Set;

import io.github.redkit.budget.Budgets;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockUnavailableException;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A Redis that hangs without dying ({@code CLIENT PAUSE ... ALL}: connections stay open,
 * nothing is answered): every capability answers within its own timeout, following its
 * failure policy, and works again once Redis does. The {@code kill -STOP} variant of the
 * same fault is in each capability's own fault tests.
 */
class ClientPauseTests {

	@Test
	void everyCapabilityAnswersWithinItsTimeoutWhileRedisIsPaused(@PrivateRedis RedisServer redis) {
		try (ConfigurableApplicationContext context = FaultsApplication.start(redis)) {
			RateLimiter limiter = context.getBean(RateLimiter.class);
			DistributedLocks locks = context.getBean(DistributedLocks.class);
			Budgets budgets = context.getBean(Budgets.class);
			IdempotentSteps steps = context.getBean(IdempotentSteps.class);
			budgets.create("paused", 100);
			assertThat(limiter.tryAcquire("api", "client").allowed()).isTrue();
			try (RespClient admin = redis.client(redis.port())) {
				// every client is paused, this one too: the pause ends by itself
				admin.call("CLIENT", "PAUSE", "4500", "ALL");
			}
			long start = System.nanoTime();
			// failure mode allow: the call goes through, counted as failed-open
			assertThat(limiter.tryAcquire("api", "client").allowed()).isTrue();
			assertThat(elapsedSince(start)).isLessThan(Duration.ofSeconds(1));
			start = System.nanoTime();
			assertThatExceptionOfType(LockUnavailableException.class)
				.isThrownBy(() -> locks.tryLock("paused", Duration.ZERO, Duration.ofSeconds(5)));
			assertThatExceptionOfType(DataAccessException.class).isThrownBy(() -> budgets.spend("paused", 10, "op-1"));
			assertThatExceptionOfType(DataAccessException.class)
				.isThrownBy(() -> steps.claim("paused", "bid", Set.of(), null));
			assertThat(elapsedSince(start)).as("three calls of a 1 s timeout each").isLessThan(Duration.ofSeconds(4));
			// what the paused Redis received runs when it wakes; a retry with the same
			// operation id is applied once
			await().atMost(Duration.ofSeconds(10))
				.ignoreExceptions()
				.until(() -> budgets.spend("paused", 10, "op-1").applied());
			assertThat(budgets.remaining("paused")).isEqualTo(90);
			await().atMost(Duration.ofSeconds(10))
				.ignoreExceptions()
				.until(() -> locks.tryLock("paused-after", Duration.ZERO, Duration.ofSeconds(5)).isPresent());
		}
	}

	private static Duration elapsedSince(long start) {
		return Duration.ofNanos(System.nanoTime() - start);
	}

}
