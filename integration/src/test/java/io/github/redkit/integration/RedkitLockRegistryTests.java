package io.github.redkit.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import io.github.redkit.testsupport.LockRecords;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.LockSettings;
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
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;

/**
 * {@link RedkitLockRegistry} against a real Redis, with the behaviours Spring
 * Integration's own {@code RedisLockRegistryTests} check: reentrancy, ownership, timed
 * and interruptible waits, two instances excluding each other, leases that run out,
 * renewal, expiry of unused locks, the {@code executeLocked} helpers.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class RedkitLockRegistryTests {

	// the fallback retry is long: a waiter that gets the lock sooner was woken by the
	// release
	private static final Duration RETRY = Duration.ofSeconds(5);

	// generous: the machine running the tests may be busy, and no test is about timeouts
	private static final Duration REDIS_TIMEOUT = Duration.ofSeconds(10);

	private static final RedisKeyspace KEYSPACE = new RedisKeyspace("redkit-test");

	@Parameter
	RedisTopology topology;

	private final String name = "si-" + UUID.randomUUID();

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private StringRedisTemplate redis;

	// two processes: each has its own locks and its own registry
	private RedisDistributedLocks locks1;

	private RedisDistributedLocks locks2;

	private RedkitLockRegistry registry1;

	private RedkitLockRegistry registry2;

	@BeforeEach
	void connect() {
		RedisScriptRunner runner = new RedisScriptRunner(this.topology.connectionFactory());
		this.redis = runner.template();
		this.locks1 = locks(runner, Duration.ofSeconds(30));
		this.locks2 = locks(runner, Duration.ofSeconds(30));
		this.registry1 = new RedkitLockRegistry(this.locks1, this.name);
		this.registry2 = new RedkitLockRegistry(this.locks2, this.name);
	}

	private static RedisDistributedLocks locks(RedisScriptRunner runner, Duration lease) {
		return new RedisDistributedLocks(runner, KEYSPACE, new LockSettings(lease, REDIS_TIMEOUT, RETRY),
				RedkitMetrics.NONE, RedkitObservations.NONE, List.of());
	}

	@AfterEach
	void close() {
		this.executor.shutdownNow();
		this.locks1.destroy();
		this.locks2.destroy();
	}

	private String redisKey(String key) {
		return KEYSPACE.key("lock").tag(this.name + ":" + key).build();
	}

	private <T> T inAnotherThread(Callable<T> action) throws Exception {
		return this.executor.submit(action).get(30, TimeUnit.SECONDS);
	}

	// a thread of this process that does not hold the lock
	private boolean tryLockElsewhere(Lock lock) throws Exception {
		Callable<Boolean> tryLock = lock::tryLock;
		return inAnotherThread(tryLock);
	}

	@Test
	void theSameThreadReentersAndTheRedisLockIsReleasedWhenTheHoldCountReachesZero() throws Exception {
		Lock lock = this.registry1.obtain("foo");
		assertThat(this.registry1.obtain("foo")).isSameAs(lock);
		assertThat(this.registry1.obtain("bar")).isNotSameAs(lock);
		lock.lock();
		assertThat(lock.tryLock()).isTrue();
		lock.lockInterruptibly();
		assertThat(LockRecords.held(this.redis, redisKey("foo"))).isTrue();
		lock.unlock();
		lock.unlock();
		assertThat(LockRecords.held(this.redis, redisKey("foo"))).isTrue();
		assertThat(this.registry2.obtain("foo").tryLock()).isFalse();
		lock.unlock();
		assertThat(LockRecords.held(this.redis, redisKey("foo"))).isFalse();
		Lock other = this.registry2.obtain("foo");
		assertThat(other.tryLock()).isTrue();
		other.unlock();
		this.registry1.expireUnusedOlderThan(-1000);
		assertThat(this.registry1.size()).isZero();
	}

	@Test
	void aThreadThatDoesNotHoldTheLockCannotUnlockIt() throws Exception {
		Lock lock = this.registry1.obtain("foo");
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock)
			.withMessageContaining("You do not own the lock at 'foo'");
		lock.lock();
		Object failure = inAnotherThread(() -> {
			assertThat(lock.tryLock()).isFalse();
			try {
				lock.unlock();
				return "unlocked";
			}
			catch (IllegalMonitorStateException ex) {
				return ex;
			}
		});
		assertThat(failure).isInstanceOf(IllegalMonitorStateException.class);
		assertThat(LockRecords.held(this.redis, redisKey("foo"))).isTrue();
		lock.unlock();
		assertThat(LockRecords.held(this.redis, redisKey("foo"))).isFalse();
	}

	@Test
	void lockBlocksUntilTheHolderInTheSameProcessUnlocks() throws Exception {
		RedkitLock lock = (RedkitLock) this.registry1.obtain("foo");
		lock.lock();
		AtomicLong acquiredAt = new AtomicLong();
		Future<?> waiter = this.executor.submit(() -> {
			lock.lock();
			acquiredAt.set(System.nanoTime());
			lock.unlock();
		});
		await().atMost(Duration.ofSeconds(5)).until(() -> lock.isUsedInThisProcess() && !waiter.isDone());
		long releasedAt = System.nanoTime();
		lock.unlock();
		waiter.get(10, TimeUnit.SECONDS);
		assertThat(acquiredAt.get()).isGreaterThan(releasedAt);
		assertThat(LockRecords.held(this.redis, redisKey("foo"))).isFalse();
	}

	@Test
	void twoInstancesExcludeEachOtherAndAWaiterIsWokenByTheRelease() throws Exception {
		Lock lock1 = this.registry1.obtain("foo");
		RedkitLock lock2 = (RedkitLock) this.registry2.obtain("foo");
		lock1.lock();
		assertThat(tryLockElsewhere(lock2)).isFalse();
		assertThat(inAnotherThread(() -> lock2.tryLock(100, TimeUnit.MILLISECONDS))).isFalse();
		AtomicLong acquiredAt = new AtomicLong();
		Future<?> waiter = this.executor.submit(() -> {
			lock2.lock();
			acquiredAt.set(System.nanoTime());
			lock2.unlock();
		});
		await().atMost(Duration.ofSeconds(5)).until(lock2::isUsedInThisProcess);
		long releasedAt = System.nanoTime();
		lock1.unlock();
		waiter.get(10, TimeUnit.SECONDS);
		assertThat(acquiredAt.get()).isGreaterThan(releasedAt);
		assertThat(Duration.ofNanos(acquiredAt.get() - releasedAt)).isLessThan(RETRY.dividedBy(2));
	}

	@Test
	void tryLockWithATimeoutGivesUpAfterItAndTheLockStaysFree() throws Exception {
		Lock lock1 = this.registry1.obtain("foo");
		lock1.lock();
		Lock lock2 = this.registry2.obtain("foo");
		long start = System.nanoTime();
		assertThat(inAnotherThread(() -> lock2.tryLock(300, TimeUnit.MILLISECONDS))).isFalse();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
		// the failed wait left no hold behind
		lock1.unlock();
		assertThat(inAnotherThread(() -> {
			boolean acquired = lock2.tryLock(5, TimeUnit.SECONDS);
			lock2.unlock();
			return acquired;
		})).isTrue();
	}

	@Test
	void lockInterruptiblyThrowsWhenInterruptedWhileWaitingAndHoldsNothing() throws Exception {
		// the holder is in another process (the wait is in Redis), then in this one (the
		// wait is on the local lock)
		for (RedkitLockRegistry holder : List.of(this.registry2, this.registry1)) {
			Lock held = holder.obtain("foo");
			held.lock();
			RedkitLock lock = (RedkitLock) this.registry1.obtain("foo");
			AtomicReference<Object> outcome = new AtomicReference<>();
			Thread thread = new Thread(() -> {
				try {
					lock.lockInterruptibly();
					outcome.set("acquired");
				}
				catch (InterruptedException ex) {
					outcome.set(ex);
				}
			});
			thread.start();
			await().atMost(Duration.ofSeconds(5))
				.until(() -> (holder == this.registry1) ? lock.hasQueuedThreads() : lock.isUsedInThisProcess());
			thread.interrupt();
			thread.join(10_000);
			assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
			held.unlock();
			assertThat(lock.isUsedInThisProcess()).isFalse();
			assertThat(LockRecords.held(this.redis, redisKey("foo"))).isFalse();
		}
	}

	@Test
	void lockIgnoresInterruptsUntilAcquiredAndKeepsTheFlag() throws Exception {
		Lock lock1 = this.registry1.obtain("foo");
		lock1.lock();
		RedkitLock lock2 = (RedkitLock) this.registry2.obtain("foo");
		AtomicBoolean interruptedAfterwards = new AtomicBoolean();
		Thread thread = new Thread(() -> {
			lock2.lock();
			interruptedAfterwards.set(Thread.currentThread().isInterrupted());
			Thread.interrupted();
			lock2.unlock();
		});
		thread.start();
		await().atMost(Duration.ofSeconds(5)).until(lock2::isUsedInThisProcess);
		thread.interrupt();
		assertThat(thread.isAlive()).isTrue();
		lock1.unlock();
		thread.join(10_000);
		assertThat(thread.isAlive()).isFalse();
		assertThat(interruptedAfterwards).isTrue();
		assertThat(LockRecords.held(this.redis, redisKey("foo"))).isFalse();
	}

	@Test
	void anInterruptedThreadStillReleasesTheLockInRedis() throws Exception {
		Lock lock = this.registry1.obtain("foo");
		lock.lock();
		Thread.currentThread().interrupt();
		try {
			lock.unlock();
			assertThat(Thread.currentThread().isInterrupted()).isTrue();
		}
		finally {
			Thread.interrupted();
		}
		assertThat(LockRecords.held(this.redis, redisKey("foo"))).isFalse();
		assertThat(tryLockElsewhere(this.registry2.obtain("foo"))).isTrue();
	}

	@Test
	void aLockWhoseLeaseRanOutIsTakenByTheOtherInstanceAndItsUnlockThrows() throws Exception {
		RedkitLockRegistry shortLease = new RedkitLockRegistry(this.locks1, this.name, Duration.ofMillis(200));
		Lock lock1 = shortLease.obtain("foo");
		lock1.lock();
		await().atMost(Duration.ofSeconds(5)).until(() -> !LockRecords.held(this.redis, redisKey("foo")));
		Lock lock2 = this.registry2.obtain("foo");
		assertThat(tryLockElsewhere(lock2)).isTrue();
		assertThatExceptionOfType(ConcurrentModificationException.class).isThrownBy(lock1::unlock)
			.withMessageContaining("was not held in Redis until released");
		// the next holder keeps its lock, and the first can try again
		assertThat(LockRecords.held(this.redis, redisKey("foo"))).isTrue();
		assertThat(lock1.tryLock()).isFalse();
	}

	@Test
	void aReentrantAcquireRenewsTheLeaseAndRetakesALostOne() throws Exception {
		RedkitLockRegistry registry = new RedkitLockRegistry(this.locks1, this.name, Duration.ofMinutes(1));
		DistributedLock lock = registry.obtain("foo");
		assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(10))).isTrue();
		assertThat(LockRecords.remainingLeaseMillis(this.redis, redisKey("foo")) / 1000).isLessThanOrEqualTo(10);
		assertThat(lock.tryLock()).isTrue();
		assertThat(LockRecords.remainingLeaseMillis(this.redis, redisKey("foo")) / 1000).isGreaterThan(30);
		lock.unlock();
		// the lock is gone from Redis while held (as when its lease ran out): the next
		// reentrant acquire takes the free key again
		this.redis.delete(redisKey("foo"));
		assertThat(lock.tryLock()).isTrue();
		assertThat(LockRecords.held(this.redis, redisKey("foo"))).isTrue();
		lock.unlock();
		lock.unlock();
		assertThat(LockRecords.held(this.redis, redisKey("foo"))).isFalse();
	}

	@Test
	void renewLockSetsTheLeaseOfAHeldLock() throws Exception {
		RedkitLockRegistry registry = new RedkitLockRegistry(this.locks1, this.name, Duration.ofSeconds(20));
		DistributedLock lock = registry.obtain("foo");
		assertThatIllegalStateException().isThrownBy(() -> registry.renewLock("foo"));
		assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(5))).isTrue();
		registry.renewLock("foo");
		assertThat(LockRecords.remainingLeaseMillis(this.redis, redisKey("foo"))).isGreaterThan(10_000);
		registry.renewLock("foo", Duration.ofMinutes(5));
		assertThat(LockRecords.remainingLeaseMillis(this.redis, redisKey("foo")) / 1000).isGreaterThan(200);
		assertThat(inAnotherThread(() -> {
			assertThatIllegalStateException().isThrownBy(() -> registry.renewLock("foo"));
			return this.registry2.obtain("foo").tryLock(100, TimeUnit.MILLISECONDS);
		})).isFalse();
		this.redis.delete(redisKey("foo"));
		assertThatIllegalStateException().isThrownBy(() -> registry.renewLock("foo"))
			.withMessageContaining("it was lost");
	}

	@Test
	void withoutALeaseTheLockIsRenewedByRedkitWhileHeld() throws Exception {
		Duration lease = Duration.ofMillis(600);
		RedisDistributedLocks shortLocks = locks(new RedisScriptRunner(this.topology.connectionFactory()), lease);
		try {
			RedkitLockRegistry registry = new RedkitLockRegistry(shortLocks, this.name);
			Lock lock = registry.obtain("foo");
			long start = System.nanoTime();
			lock.lock();
			await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
				assertThat(LockRecords.held(this.redis, redisKey("foo"))).isTrue();
				return System.nanoTime() - start > 4 * lease.toNanos();
			});
			registry.renewLock("foo");
			lock.unlock();
			assertThat(LockRecords.held(this.redis, redisKey("foo"))).isFalse();
		}
		finally {
			shortLocks.destroy();
		}
	}

	@Test
	void aRenewalSchedulerKeepsALeasedLockWhileHeld() throws Exception {
		Duration lease = Duration.ofMillis(600);
		RedkitLockRegistry registry = new RedkitLockRegistry(this.locks1, this.name, lease);
		SimpleAsyncTaskScheduler scheduler = new SimpleAsyncTaskScheduler();
		try {
			registry.setRenewalTaskScheduler(scheduler);
			Lock lock = registry.obtain("foo");
			long start = System.nanoTime();
			lock.lock();
			await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
				assertThat(LockRecords.held(this.redis, redisKey("foo"))).isTrue();
				return System.nanoTime() - start > 4 * lease.toNanos();
			});
			lock.unlock();
			assertThat(LockRecords.held(this.redis, redisKey("foo"))).isFalse();
		}
		finally {
			scheduler.close();
		}
	}

	@Test
	void unusedLocksAreDroppedButHeldOnesAreKept() throws Exception {
		Lock held = this.registry1.obtain("held");
		held.lock();
		Lock unused = this.registry1.obtain("unused");
		this.registry1.expireUnusedOlderThan(60_000);
		assertThat(this.registry1.size()).isEqualTo(2);
		this.registry1.expireUnusedOlderThan(-1);
		assertThat(this.registry1.size()).isOne();
		assertThat(this.registry1.obtain("held")).isSameAs(held);
		assertThat(this.registry1.obtain("unused")).isNotSameAs(unused);
		this.registry1.setCacheCapacity(3);
		for (int i = 0; i < 10; i++) {
			this.registry1.obtain("key-" + i);
		}
		assertThat(this.registry1.size()).isEqualTo(3);
		assertThat(this.registry1.obtain("held")).isSameAs(held);
		// a dropped lock still excludes: Redis does
		assertThat(tryLockElsewhere(unused)).isTrue();
		assertThat(tryLockElsewhere(this.registry1.obtain("unused"))).isFalse();
		held.unlock();
	}

	@Test
	void executeLockedRunsWhileHoldingTheLockAndTimesOutWhenItIsTaken() throws Exception {
		String result = this.registry1.executeLocked("foo", () -> {
			assertThat(LockRecords.held(this.redis, redisKey("foo"))).isTrue();
			assertThat(tryLockElsewhere(this.registry2.obtain("foo"))).isFalse();
			return "done";
		});
		assertThat(result).isEqualTo("done");
		assertThat(LockRecords.held(this.redis, redisKey("foo"))).isFalse();
		this.registry2.obtain("foo").lock();
		assertThatExceptionOfType(TimeoutException.class)
			.isThrownBy(() -> this.registry1.executeLocked("foo", Duration.ofMillis(100), () -> {
			}))
			.withMessageContaining("was not acquired in time");
		assertThat(this.registry1.obtain("foo").tryLock()).isFalse();
	}

	@Test
	void conditionsAreNotSupported() {
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> this.registry1.obtain("foo").newCondition());
	}

	@Test
	void manyThreadsOfTwoInstancesIncrementACounterWithoutLosingAnUpdate() throws Exception {
		String counter = "redkit-test:si-counter:" + this.name;
		List<CompletableFuture<Void>> done = new ArrayList<>();
		for (int t = 0; t < 8; t++) {
			RedkitLockRegistry registry = (t % 2 == 0) ? this.registry1 : this.registry2;
			done.add(CompletableFuture.runAsync(() -> {
				for (int i = 0; i < 10; i++) {
					Lock lock = registry.obtain("counter");
					lock.lock();
					try {
						String value = this.redis.opsForValue().get(counter);
						long next = ((value != null) ? Long.parseLong(value) : 0) + 1;
						this.redis.opsForValue().set(counter, Long.toString(next), Duration.ofMinutes(5));
					}
					finally {
						lock.unlock();
					}
				}
			}, this.executor));
		}
		CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
		assertThat(this.redis.opsForValue().get(counter)).isEqualTo("80");
	}

}
