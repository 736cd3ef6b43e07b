package io.github.redkit.lock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Locks fail closed, within their Redis timeout, when Redis does not answer.
 */
class LockFailClosedTests {

	@Test
	void aFrozenRedisFailsLocksClosedAndEndsRenewedLeases(@PrivateRedis RedisServer redis) {
		failsClosed(redis);
		renewalsThatCannotReachRedisEndInALostLease(redis);
	}

	private void renewalsThatCannotReachRedisEndInALostLease(RedisServer redis) {
		LettuceConnectionFactory factory = redis.createConnectionFactory();
		List<LockHandle> lost = new CopyOnWriteArrayList<>();
		RedisDistributedLocks locks = new RedisDistributedLocks(new RedisScriptRunner(factory),
				new RedisKeyspace("redkit-test"),
				new LockSettings(Duration.ofMillis(300), Duration.ofMillis(100), Duration.ofSeconds(1)),
				RedkitMetrics.NONE, RedkitObservations.NONE, List.of(lost::add));
		try {
			// a cold connection on a loaded machine can outlast the 100 ms timeout: the
			// first lock is retried (an attempt Redis ran late is undone when it answers)
			new StringRedisTemplate(factory).hasKey("warm");
			LockHandle handle = await().atMost(Duration.ofSeconds(15))
				.ignoreException(LockUnavailableException.class)
				.until(() -> locks.tryLock("renewed", Duration.ZERO, null), Optional::isPresent)
				.orElseThrow();
			redis.pause();
			await().atMost(Duration.ofSeconds(5)).until(() -> lost.contains(handle));
			assertThat(handle.isHeld()).isFalse();
		}
		finally {
			redis.resume();
			locks.destroy();
			factory.destroy();
		}
	}

	private void failsClosed(RedisServer redis) {
		LettuceConnectionFactory factory = redis.createConnectionFactory();
		RedisDistributedLocks locks = new RedisDistributedLocks(new RedisScriptRunner(factory),
				new RedisKeyspace("redkit-test"),
				new LockSettings(Duration.ofSeconds(30), Duration.ofMillis(200), Duration.ofSeconds(1)),
				RedkitMetrics.NONE, RedkitObservations.NONE, List.of());
		try {
			// a cold JVM's first connection takes longer than the 200 ms under test
			new StringRedisTemplate(factory).hasKey("warm");
			await().atMost(Duration.ofSeconds(15))
				.ignoreException(LockUnavailableException.class)
				.until(() -> locks.tryLock("warm", Duration.ZERO, Duration.ofSeconds(1)), Optional::isPresent)
				.orElseThrow()
				.close();
			redis.pause();
			boolean[] ran = new boolean[1];
			long start = System.nanoTime();
			assertThatExceptionOfType(LockUnavailableException.class)
				.isThrownBy(() -> locks.withLock("invoice-1", Duration.ofSeconds(5), null, () -> ran[0] = true))
				.withMessageContaining("invoice-1");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
			assertThat(ran[0]).isFalse();
			redis.resume();
			// the attempt Redis received while frozen is undone once it answers again
			await().atMost(Duration.ofSeconds(5))
				.until(() -> locks.tryLock("invoice-1", Duration.ZERO, Duration.ofSeconds(1)).isPresent());
		}
		finally {
			redis.resume();
			locks.destroy();
			factory.destroy();
		}
	}

}
