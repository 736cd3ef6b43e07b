package io.github.redkit.lock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;

/**
 * A lock acquired while its bean is being destroyed (a call still in flight when the
 * application stops): the lease can no longer be watched, so the lock is given back and
 * the caller told, never left waiting or the lock left taken until its lease ends. The
 * asynchronous acquire used to make its answer, then fail to watch the lease inside the
 * step that completes it: the answer never completed and the lock stayed held.
 */
class LockAfterShutdownTests {

	@Test
	void anAcquireThatCanNoLongerWatchItsLeaseFailsAndLeavesTheLockFree() throws Exception {
		String key = "shutdown-" + UUID.randomUUID();
		RedisDistributedLocks stopped = locks();
		RedisDistributedLocks other = locks();
		try {
			stopped.destroy();
			CompletableFuture<Optional<LockHandle>> answer = stopped.tryLockAsync("orders", key, Duration.ZERO,
					Duration.ofMinutes(5));
			assertThat(answer.handle((handle, ex) -> ex).get(5, TimeUnit.SECONDS)).isNotNull();
			// a key of its own: the first key is given back asynchronously, and an
			// acquire that
			// still found it held would answer "not acquired" without reaching the
			// watchdog
			String second = key + "-blocking";
			assertThatRuntimeException()
				.isThrownBy(() -> stopped.tryLock(second, Duration.ZERO, Duration.ofMinutes(5)));
			for (String freed : List.of(key, second)) {
				Optional<LockHandle> taken = other.tryLock(freed, Duration.ofSeconds(5), Duration.ofSeconds(30));
				assertThat(taken).as("the lock is free again").isPresent();
				taken.get().close();
			}
		}
		finally {
			other.destroy();
		}
	}

	@Test
	void aBlankKeyIsRefusedAsEveryCapabilityRefusesIt() {
		RedisDistributedLocks locks = locks();
		try {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> locks.tryLock(" ", Duration.ZERO, Duration.ofSeconds(1)))
				.withMessageContaining("blank");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> locks.tryLockAsync("orders", "\t", Duration.ZERO, Duration.ofSeconds(1)));
		}
		finally {
			locks.destroy();
		}
	}

	private static RedisDistributedLocks locks() {
		RedisScriptRunner runner = new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory());
		runner.connectInBackground().join();
		return new RedisDistributedLocks(runner, new RedisKeyspace("lock-shutdown"),
				new LockSettings(Duration.ofSeconds(30), Duration.ofSeconds(2), Duration.ofSeconds(1)),
				RedkitMetrics.NONE, RedkitObservations.NONE, List.of());
	}

}
