package io.github.redkit.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redkit.concurrency.ConcurrencyPermit;
import io.github.redkit.concurrency.ConcurrencyPolicy;
import io.github.redkit.concurrency.internal.ConcurrencyLimitSettings;
import io.github.redkit.concurrency.internal.RedisConcurrencyLimiter;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.LockSettings;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import io.lettuce.core.api.StatefulConnection;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A give-back (a lock's release, a permit's) whose caller's timeout passes while it waits
 * for a connection the factory does not share is still sent once one frees: the lock or
 * the permit is free at once after, not when its lease ends, and the caller still returns
 * within its timeout.
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

	private final LettuceConnectionFactory factory = unsharedWithOneConnection();

	private final RedisScriptRunner runner = new RedisScriptRunner(this.factory);

	@AfterEach
	void destroyFactory() {
		this.factory.destroy();
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
		Thread borrower = holdThePoolsOnlyConnection();
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
		Thread borrower = holdThePoolsOnlyConnection();
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

	// another borrower holds the pool's only connection in a blocking pop for a while
	private Thread holdThePoolsOnlyConnection() {
		byte[] list = ("ugb-blocked-" + UUID.randomUUID()).getBytes();
		CompletableFuture<Void> sent = new CompletableFuture<>();
		Thread borrower = new Thread(() -> {
			try (RedisConnection connection = this.factory.getConnection()) {
				sent.complete(null);
				connection.listCommands().bLPop(HELD_SECONDS, list);
			}
		});
		borrower.start();
		sent.join();
		// the pop on the server: the borrower won the pool's only connection
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		try (RespClient client = redis.client(redis.port())) {
			while (!client.callForString("CLIENT", "LIST").contains("cmd=blpop")) {
				assertThat(System.nanoTime()).as("the borrower's BLPOP reached the server").isLessThan(deadline);
				Thread.onSpinWait();
			}
		}
		return borrower;
	}

	private static LettuceConnectionFactory unsharedWithOneConnection() {
		GenericObjectPoolConfig<StatefulConnection<?, ?>> pool = new GenericObjectPoolConfig<>();
		pool.setMaxTotal(1);
		// Boot's default max-wait: a borrow waits as long as it takes
		pool.setMaxWait(Duration.ofMillis(-1));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(RedisServer.HOST, redis.port()),
				LettucePoolingClientConfiguration.builder()
					.poolConfig(pool)
					.commandTimeout(Duration.ofSeconds(10))
					.build());
		factory.setShareNativeConnection(false);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
