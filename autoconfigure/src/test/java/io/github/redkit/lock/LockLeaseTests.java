package io.github.redkit.lock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.testsupport.LockRecords;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Leases: renewal while the protected code runs, and detection of a lost lease.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class LockLeaseTests {

	// renewed every third of it: a JVM stalled for less than two thirds (2 s) keeps the
	// lock (a lease of 600 ms was lost at a load near 50 on 2 cores)
	private static final Duration LEASE = Duration.ofSeconds(3);

	@Parameter
	RedisTopology topology;

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final List<LockHandle> lost = new CopyOnWriteArrayList<>();

	private StringRedisTemplate redis;

	private RedisDistributedLocks locks;

	private final String key = "job-" + UUID.randomUUID();

	@BeforeEach
	void connect() {
		RedisScriptRunner runner = new RedisScriptRunner(this.topology.connectionFactory());
		this.redis = runner.template();
		this.locks = new RedisDistributedLocks(runner, new RedisKeyspace("redkit-test"),
				// Redis' answers waited for as long as the connection waits (2 s were
				// missed at a load near 50)
				new LockSettings(LEASE, Duration.ofSeconds(30), Duration.ofSeconds(1)),
				new MicrometerRedkitMetrics(() -> this.registry), RedkitObservations.NONE, List.of(this.lost::add));
	}

	@AfterEach
	void close() {
		this.locks.destroy();
	}

	@Test
	void aLockWithTheDefaultLeaseIsRenewedWhileTheActionRuns() {
		String lockKey = this.locks.redisKeys(this.key).get(0);
		long start = System.nanoTime();
		String result = this.locks.withLock(this.key, Duration.ZERO, null, () -> {
			LockHandle handle = DistributedLocks.current().orElseThrow();
			// run for two leases, checking all along that the lock stays
			await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> {
				assertThat(LockRecords.held(this.redis, lockKey)).isTrue();
				assertThat(handle.isHeld()).isTrue();
				return System.nanoTime() - start > 2 * LEASE.toNanos();
			});
			return "done";
		});
		assertThat(result).isEqualTo("done");
		assertThat(LockRecords.held(this.redis, lockKey)).isFalse();
		assertThat(this.registry.get("redkit.lock.renewals").tag("outcome", "renewed").counter().count())
			.isGreaterThanOrEqualTo(3);
		assertThat(this.registry.get("redkit.lock.held").timer().totalTime(java.util.concurrent.TimeUnit.MILLISECONDS))
			.isGreaterThan(LEASE.toMillis() * 3 / 2);
		assertThat(this.lost).isEmpty();
	}

	@Test
	void aRenewalRefusedByRedisMarksTheLockLostAndTheActionFails() {
		String lockKey = this.locks.redisKeys(this.key).get(0);
		assertThatExceptionOfType(LockLostException.class)
			.isThrownBy(() -> this.locks.withLock(this.key, Duration.ZERO, null, () -> {
				LockHandle handle = DistributedLocks.current().orElseThrow();
				// as after a failover to a replica that never saw the lock
				this.redis.delete(lockKey);
				// the handle reads not held a moment before its listeners are told
				await().atMost(Duration.ofSeconds(60)).until(() -> !handle.isHeld() && !this.lost.isEmpty());
				assertThat(this.lost).containsExactly(handle);
				return "unprotected";
			}))
			.satisfies((ex) -> assertThat(ex.getHandle().key()).isEqualTo(this.key));
		assertThat(this.registry.get("redkit.lock.lease.lost").counter().count()).isOne();
		assertThat(this.registry.get("redkit.lock.renewals").tag("outcome", "lost").counter().count()).isOne();
	}

	@Test
	void anExplicitLeaseThatRunsOutWhileHeldIsReportedWithoutWaitingForTheRelease() {
		LockHandle handle = this.locks.tryLock(this.key, Duration.ZERO, Duration.ofMillis(150)).orElseThrow();
		await().atMost(Duration.ofSeconds(60)).until(() -> this.lost.contains(handle));
		assertThat(handle.isHeld()).isFalse();
		assertThat(handle.extend(Duration.ofSeconds(1))).isFalse();
		handle.close();
		assertThat(this.lost).hasSize(1);
		assertThat(this.registry.get("redkit.lock.lease.lost").counter().count()).isOne();
	}

	@Test
	void anExplicitLeaseIsNotRenewed() {
		LockHandle handle = this.locks.tryLock(this.key, Duration.ZERO, Duration.ofMillis(200)).orElseThrow();
		await().atMost(Duration.ofSeconds(60))
			.until(() -> !LockRecords.held(this.redis, this.locks.redisKeys(this.key).get(0)));
		assertThat(handle.isHeld()).isFalse();
		handle.close();
	}

	@Test
	void extendMovesTheLeaseForward() {
		// a lease a stalled JVM does not outlive before the extension (2 s could be, at a
		// load of 30 to 80)
		LockHandle handle = this.locks.tryLock(this.key, Duration.ZERO, Duration.ofSeconds(10)).orElseThrow();
		assertThat(handle.extend(Duration.ofSeconds(30))).isTrue();
		assertThat(LockRecords.remainingLeaseMillis(this.redis, this.locks.redisKeys(this.key).get(0)))
			.isBetween(20_000L, 30_000L);
		assertThat(handle.isHeld()).isTrue();
		handle.close();
		assertThat(this.lost).isEmpty();
	}

	private long redisMillis() {
		return this.redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
	}

	@Test
	void aLockReleasedButKeptForAWhileIsNotReportedLostAndWaitersGetItOnlyAfterwards() {
		// a loaded machine may release after the lease ended (nothing left to keep) or
		// try again after the kept time: the scenario runs again, on a key of its own,
		// until one run can be judged, never skipping the check silently
		long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
		int runs = 0;
		while (!keptForAWhile(this.key + ":" + runs++)) {
			assertThat(System.nanoTime()).as("a run judged within 90 s (%s runs)", runs).isLessThan(deadline);
		}
		// the first leases ended long ago: a lost report would have come by now
		assertThat(this.lost).isEmpty();
		assertThat(this.registry.find("redkit.lock.lease.lost").counters())
			.allSatisfy((counter) -> assertThat(counter.count()).isZero());
	}

	/**
	 * Releases a lock kept for a while, then tries it at once, and waits for it.
	 * @return whether the run could be judged: on Redis' clock (each call applied after
	 * the reading before it and before the reading after it) the release applied within
	 * the lease and the try within the kept time
	 */
	private boolean keptForAWhile(String key) {
		Duration lease = Duration.ofMillis(1_000);
		Duration keepFor = Duration.ofMillis(2_000);
		long acquiredAfter = redisMillis();
		LockHandle handle = this.locks.tryLock(key, Duration.ZERO, lease).orElseThrow();
		long releasedAfter = redisMillis();
		handle.release(keepFor);
		long releasedBy = redisMillis();
		Optional<LockHandle> kept = this.locks.tryLock(key, Duration.ZERO, LEASE);
		long triedBy = redisMillis();
		if (releasedBy >= acquiredAfter + lease.toMillis() || triedBy >= releasedAfter + keepFor.toMillis()) {
			kept.ifPresent(LockHandle::close);
			return false;
		}
		assertThat(kept).as("taken while kept").isEmpty();
		// a waiter is not woken before the kept time is up, and gets the lock right after
		LockHandle next = this.locks.tryLock(key, Duration.ofSeconds(30), LEASE).orElseThrow();
		assertThat(redisMillis()).as("the waiter's lock taken once the kept time was up")
			.isGreaterThanOrEqualTo(releasedAfter + keepFor.toMillis());
		next.close();
		return true;
	}

}
