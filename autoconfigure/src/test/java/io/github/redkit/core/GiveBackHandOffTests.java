package io.github.redkit.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.LockSettings;
import io.github.redkit.lock.LockUnavailableException;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.TcpProxy;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A give-back (here a lock's release) waiting to be handed off is sent once a connection
 * is there, where any other script would be dropped: beyond the hand-off's bound of
 * scripts waiting for a connection, and while a shared factory makes its connection again
 * after a reset. The lock is free at once after, not when its lease ends.
 */
class GiveBackHandOffTests {

	private static final Duration TIMEOUT = Duration.ofMillis(300);

	// the queued decisions' own timeout: none may time out (freeing its place in the
	// hand-off) before the one beyond the bound is made, however long a loaded machine
	// takes to queue them (a .ci/run with three module threads: one beyond the bound
	// was queued, and timed out)
	private static final Duration DECISION_TIMEOUT = Duration.ofSeconds(10);

	// far beyond the test's own bound: a release that is dropped shows
	private static final Duration LEASE = Duration.ofSeconds(60);

	@PrivateRedis
	private static RedisServer redis;

	private final RedisKeyspace keyspace = new RedisKeyspace("gbh-" + UUID.randomUUID());

	@Test
	void aReleaseBeyondTheHandOffsBoundIsHandedOffAndSentOnceThePoolFrees() throws Exception {
		try (OneConnectionPool pool = OneConnectionPool.on(redis)) {
			RedisScriptRunner runner = new RedisScriptRunner(pool.factory());
			RedisDistributedLocks locks = locks(runner);
			RedisRateLimiter limiter = new RedisRateLimiter(runner, this.keyspace,
					Map.of("api", RateLimitPolicy.slidingWindow(RateLimitWindow.of(10_000, Duration.ofHours(1)))),
					new RateLimitSettings(LimitFailureMode.DENY, DECISION_TIMEOUT, Duration.ZERO), RedkitMetrics.NONE,
					RedkitObservations.NONE);
			await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
				assertThat(limiter.tryAcquire("api", "warm-up").allowed()).isTrue();
				warmUp(locks);
			});
			LockHandle held = locks.tryLock("order", Duration.ZERO, LEASE).orElseThrow();
			Thread borrower = pool.hold(3);
			// the one hand-off thread (the pool's max-active) waits for the pool: the
			// bound's worth of decisions wait behind it, and the next one fails at once
			// (the first taken by that thread before the rest is queued: one taken late,
			// on a loaded machine, would free a place for the one beyond)
			limiter.tryAcquireAsync("api", List.of("queued-0"), 1);
			await().atMost(Duration.ofSeconds(10)).until(OneConnectionPool::aThreadWaitsToBorrow);
			for (int i = 1; i <= RedisScriptRunner.HAND_OFF_WAITING_PER_THREAD; i++) {
				limiter.tryAcquireAsync("api", List.of("queued-" + i), 1);
			}
			CompletableFuture<RateLimitDecision> beyond = limiter.tryAcquireAsync("api", List.of("beyond"), 1);
			assertThat(beyond).failsWithin(Duration.ofSeconds(1))
				.withThrowableThat()
				.havingRootCause()
				.isInstanceOf(RedisConnectionFailureException.class)
				.withMessageContaining("wait for a connection already");
			assertThat(held.release()).as("the release timed out waiting for the pool").isFalse();
			borrower.join(10_000);
			// the queued decisions go first, sent although their callers timed out: an
			// acquire made while they still fill the hand-off is refused at once (a
			// loaded
			// machine was still sending them), so it is tried again until they are sent;
			// a release never sent holds the lock for its 60 s lease, beyond this wait
			await().atMost(Duration.ofSeconds(30))
				.ignoreExceptionsInstanceOf(LockUnavailableException.class)
				.untilAsserted(() -> assertThat(locks.tryLock("order", Duration.ofSeconds(5), LEASE))
					.as("the lock was freed once the pool's connection was")
					.hasValueSatisfying(LockHandle::close));
		}
	}

	@Test
	void aReleaseSentWhileASharedFactoryConnectsAgainAfterAResetIsSentOnceConnected() {
		try (TcpProxy link = TcpProxy.start(RedisServers.standalone().port())) {
			LettuceConnectionFactory factory = link.connectionFactory(Duration.ofSeconds(10));
			try {
				RedisDistributedLocks locks = locks(new RedisScriptRunner(factory));
				await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> warmUp(locks));
				LockHandle held = locks.tryLock("order", Duration.ZERO, LEASE).orElseThrow();
				// the next connection's handshake is held
				link.partition();
				factory.resetConnection();
				assertThat(held.release()).as("the release timed out waiting for the connection").isFalse();
				link.heal();
				assertThat(locks.tryLock("order", Duration.ofSeconds(5), LEASE))
					.as("the lock was freed once the factory was connected again")
					.hasValueSatisfying(LockHandle::close);
			}
			finally {
				link.heal();
				factory.destroy();
			}
		}
	}

	private RedisDistributedLocks locks(RedisScriptRunner runner) {
		return new RedisDistributedLocks(runner, this.keyspace, new LockSettings(LEASE, TIMEOUT, Duration.ofMillis(50)),
				RedkitMetrics.NONE, RedkitObservations.NONE, List.of());
	}

	// connected, and the scripts loaded: a cold first call may take longer than the
	// timeout
	private static void warmUp(RedisDistributedLocks locks) {
		locks.tryLock("warm-up", Duration.ZERO, LEASE).orElseThrow().close();
		locks.tryLock("warm-up", Duration.ZERO, LEASE).orElseThrow().close();
	}

}
