package io.github.redkit.lock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lease of 10^17 ms and more reaches Redis as exact digits: a caller that waits for
 * such a lock flags itself as a waiter with the lock's remaining lease, which Lua would
 * have written as {@code 1e+17}.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class LockLongLeaseTests {

	private static final Duration CENTURIES = Duration.ofMillis(200_000_000_000_000_000L);

	@Parameter
	RedisTopology topology;

	private RedisDistributedLocks locks;

	private final String key = "long-" + UUID.randomUUID();

	@BeforeEach
	void connect() {
		this.locks = new RedisDistributedLocks(new RedisScriptRunner(this.topology.connectionFactory()),
				new RedisKeyspace("redkit-test"),
				new LockSettings(Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(1)),
				RedkitMetrics.NONE, RedkitObservations.NONE, List.of());
	}

	@AfterEach
	void close() {
		this.locks.destroy();
	}

	@Test
	void aCallerWaitsForALockHeldForCenturies() {
		Optional<LockHandle> holder = this.locks.tryLock(this.key, Duration.ZERO, CENTURIES);
		assertThat(holder).isPresent();
		assertThat(this.locks.tryLock(this.key, Duration.ofMillis(50), Duration.ofSeconds(1))).isEmpty();
		assertThat(holder.get().isHeld()).isTrue();
		holder.get().close();
		assertThat(this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(1))).isPresent();
	}

}
