package io.github.redkit.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redkit.cache.internal.SingleFlight;
import io.github.redkit.concurrency.ConcurrencyPermit;
import io.github.redkit.concurrency.ConcurrencyPolicy;
import io.github.redkit.concurrency.internal.ConcurrencyLimitSettings;
import io.github.redkit.concurrency.internal.RedisConcurrencyLimiter;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.idempotency.StepOutcome;
import io.github.redkit.idempotency.internal.IdempotencySettings;
import io.github.redkit.idempotency.internal.RedisIdempotentSteps;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.LockSettings;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitReservation;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.DataAccessException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A give-back (a lock's release, a permit's, a step's abandon, a rate limit's refund, a
 * cache entry's unlock) whose caller's timeout passes (or whose caller is interrupted)
 * while it waits for a connection the factory does not share is still sent once one
 * frees: what it held is free at once after, not when its lease ends, and the caller
 * still returns within its timeout.
 */
class UnsharedGiveBackTests {

	private static final Duration TIMEOUT = Duration.ofMillis(300);

	// far beyond the test's own bound: a give-back that is dropped shows
	private static final Duration LEASE = Duration.ofSeconds(60);

	// how long another borrower holds the pool's only connection
	private static final int HELD_SECONDS = 2;

	@PrivateRedis
	private static RedisServer redis;

	private final RedisKeyspace keyspace = new RedisKeyspace("ugb-" + UUID.randomUUID());

	private final OneConnectionPool pool = OneConnectionPool.on(redis);

	private final RedisScriptRunner runner = new RedisScriptRunner(this.pool.factory());

	@AfterEach
	void closePool() {
		this.pool.close();
	}

	@Test
	void aLockReleaseThatTimedOutWaitingForThePoolStillFreesTheLock() throws Exception {
		RedisDistributedLocks locks = new RedisDistributedLocks(this.runner, this.keyspace,
				new LockSettings(LEASE, TIMEOUT, Duration.ofMillis(50)), RedkitMetrics.NONE, RedkitObservations.NONE,
				List.of());
		// connected, and the scripts loaded: a cold first call may take longer than the
		// timeout
		await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
			locks.tryLock("warm-up", Duration.ZERO, LEASE).orElseThrow().close();
			locks.tryLock("warm-up", Duration.ZERO, LEASE).orElseThrow().close();
		});
		LockHandle held = locks.tryLock("order", Duration.ZERO, LEASE).orElseThrow();
		Thread borrower = this.pool.hold(HELD_SECONDS);
		long start = System.nanoTime();
		assertThat(held.release()).as("the release timed out waiting for the pool").isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(HELD_SECONDS));
		borrower.join(10_000);
		Optional<LockHandle> next = locks.tryLock("order", Duration.ofSeconds(5), LEASE);
		assertThat(next).as("the lock was freed once the pool's connection was").isPresent();
		next.get().close();
	}

	@Test
	void aPermitReleaseThatTimedOutWaitingForThePoolStillFreesThePermit() throws Exception {
		RedisConcurrencyLimiter limiter = new RedisConcurrencyLimiter(this.runner, this.keyspace,
				Map.of("one", new ConcurrencyPolicy(1, LEASE)),
				new ConcurrencyLimitSettings(LimitFailureMode.DENY, TIMEOUT), RedkitMetrics.NONE,
				RedkitObservations.NONE);
		await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
			limiter.tryAcquire("one", "warm-up").orElseThrow().close();
			limiter.tryAcquire("one", "warm-up").orElseThrow().close();
		});
		ConcurrencyPermit held = limiter.tryAcquire("one", "k").orElseThrow();
		Thread borrower = this.pool.hold(HELD_SECONDS);
		long start = System.nanoTime();
		held.close();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(HELD_SECONDS));
		borrower.join(10_000);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		Optional<ConcurrencyPermit> next = limiter.tryAcquire("one", "k");
		while (next.isEmpty() && System.nanoTime() < deadline) {
			next = limiter.tryAcquire("one", "k");
		}
		assertThat(next).as("the permit was given back once the pool's connection was free").isPresent();
		next.get().close();
	}

	@Test
	void aStepAbandonThatTimedOutWaitingForThePoolStillFreesTheStep() throws Exception {
		RedisIdempotentSteps steps = new RedisIdempotentSteps(this.runner, this.keyspace, JsonMapper.builder().build(),
				new IdempotencySettings(Duration.ofHours(1), LEASE, TIMEOUT), RedkitMetrics.NONE,
				RedkitObservations.NONE);
		await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
			assertThat(steps.claim("warm-up", "step", Set.of(), null)).isEqualTo(StepOutcome.CLAIMED);
			steps.abandon("warm-up", "step");
		});
		assertThat(steps.claim("order", "pay", Set.of(), null)).isEqualTo(StepOutcome.CLAIMED);
		Thread borrower = this.pool.hold(HELD_SECONDS);
		long start = System.nanoTime();
		assertThatExceptionOfType(DataAccessException.class).as("the abandon timed out waiting for the pool")
			.isThrownBy(() -> steps.abandon("order", "pay"));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(HELD_SECONDS));
		borrower.join(10_000);
		await("the step abandoned once the pool's connection was free").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> steps.claim("order", "pay", Set.of(), null) == StepOutcome.CLAIMED);
	}

	@Test
	void aRateLimitRefundThatTimedOutWaitingForThePoolStillGivesThePermitsBack() throws Exception {
		RedisRateLimiter limiter = new RedisRateLimiter(this.runner, this.keyspace,
				Map.of("tokens", RateLimitPolicy.slidingWindow(RateLimitWindow.of(100, Duration.ofHours(1)))),
				new RateLimitSettings(LimitFailureMode.DENY, TIMEOUT, Duration.ZERO), RedkitMetrics.NONE,
				RedkitObservations.NONE);
		await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
			RateLimitReservation warmUp = limiter.reserve("tokens", List.of("warm-up"), 1);
			assertThat(warmUp.allowed()).isTrue();
			assertThat(warmUp.settle(0)).isTrue();
		});
		RateLimitReservation reservation = limiter.reserve("tokens", List.of("acme"), 60);
		assertThat(reservation.allowed()).isTrue();
		Thread borrower = this.pool.hold(HELD_SECONDS);
		// every attempt of the refund times out waiting for the pool
		assertThat(reservation.settleAsync(0)).succeedsWithin(Duration.ofSeconds(HELD_SECONDS + 1)).isEqualTo(false);
		borrower.join(10_000);
		await("the 60 permits given back once the pool's connection was free").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> {
				RateLimitReservation look = limiter.reserve("tokens", List.of("acme"), 1);
				look.settle(0);
				return look.decision().remaining() == 99;
			});
	}

	@Test
	void aCacheUnlockWhoseCallerWasInterruptedWhileThePoolIsHeldStillFreesTheLock() throws Exception {
		SingleFlight flight = new SingleFlight(this.runner, this.keyspace);
		String lockKey = flight.lockKey("entry".getBytes());
		await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
			String token = SingleFlight.newToken();
			assertThat(flight.tryLock(lockKey, token, LEASE)).isTrue();
			flight.unlock(lockKey, token, LEASE);
		});
		String token = SingleFlight.newToken();
		assertThat(flight.tryLock(lockKey, token, LEASE)).isTrue();
		Thread borrower = this.pool.hold(HELD_SECONDS);
		// a loader interrupted (its request cancelled) unlocks in its finally
		Thread.currentThread().interrupt();
		try {
			assertThatExceptionOfType(DataAccessException.class).as("the interrupted unlock gave up its wait")
				.isThrownBy(() -> flight.unlock(lockKey, token, LEASE));
		}
		finally {
			Thread.interrupted();
		}
		borrower.join(10_000);
		await("the entry's lock freed once the pool's connection was free").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> flight.tryLock(lockKey, SingleFlight.newToken(), LEASE));
	}

}
