package io.github.redkit.integration;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

import io.github.redkit.lock.DistributedLocks;
import org.jspecify.annotations.Nullable;

import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.util.Assert;

/**
 * A Spring Integration lock registry backed by Redkit's {@link DistributedLocks}: the
 * locks it hands out follow {@link java.util.concurrent.locks.Lock} (reentrant per
 * thread, released in Redis when the hold count drops to zero, an unlock by a thread that
 * does not hold the lock throws {@link IllegalMonitorStateException}), so that leader
 * election and aggregators can use them. Threads of this process queue on a local lock
 * per key before they reach Redis.
 * <p>
 * Without a lease the locks get Redkit's default lease ({@code redkit.lock.lease-time}),
 * renewed by Redkit while they are held; with one they live that long unless renewed, as
 * the locks of Spring Integration's {@code RedisLockRegistry} do.
 */
public class RedkitLockRegistry
		implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {

	/** The number of unused locks kept in memory when no capacity is set. */
	public static final int DEFAULT_CAPACITY = 256;

	private final DistributedLocks locks;

	private final String name;

	private final @Nullable Duration lease;

	// access order: the least recently obtained unused locks go first when full
	private final Map<String, RedkitLock> registry = new LinkedHashMap<>(16, 0.75f, true);

	// not synchronized: a virtual thread must not pin its carrier
	private final ReentrantLock registryLock = new ReentrantLock();

	private volatile int capacity = DEFAULT_CAPACITY;

	private volatile @Nullable TaskScheduler renewalScheduler;

	/**
	 * Creates a registry whose locks are renewed by Redkit while held.
	 * @param locks the distributed locks
	 * @param name the registry's name: the metrics name of its locks and the start of
	 * their keys, so that registries with different names do not exclude each other
	 */
	public RedkitLockRegistry(DistributedLocks locks, String name) {
		this(locks, name, null);
	}

	/**
	 * Creates a registry.
	 * @param locks the distributed locks
	 * @param name the registry's name: the metrics name of its locks and the start of
	 * their keys, so that registries with different names do not exclude each other
	 * @param lease how long a lock lives unless renewed; {@code null} for Redkit's
	 * default lease, renewed while the lock is held
	 */
	public RedkitLockRegistry(DistributedLocks locks, String name, @Nullable Duration lease) {
		Assert.notNull(locks, "Locks must not be null");
		Assert.hasText(name, "Name must not be empty");
		Assert.isTrue(lease == null || lease.toMillis() > 0, "Lease must be at least 1 ms");
		this.locks = locks;
		this.name = name;
		this.lease = lease;
	}

	/**
	 * Sets how many locks are kept in memory; beyond it, the least recently obtained
	 * locks that no thread holds or waits for are dropped. A dropped lock that is still
	 * used keeps working: Redis excludes its holders from those of the new one.
	 * @param capacity the capacity, at least 1
	 */
	public void setCacheCapacity(int capacity) {
		Assert.isTrue(capacity > 0, "Capacity must be positive");
		this.capacity = capacity;
	}

	/**
	 * Renews the locks taken with a lease every third of it while they are held (locks
	 * without one are renewed by Redkit anyway).
	 * @param renewalTaskScheduler the scheduler
	 */
	@Override
	public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {
		Assert.notNull(renewalTaskScheduler, "Renewal task scheduler must not be null");
		this.renewalScheduler = renewalTaskScheduler;
	}

	/**
	 * Returns the lock of a key: the same instance for the same key while it is kept.
	 * @param lockKey the key; its {@code toString()} names the lock
	 * @return the lock
	 */
	@Override
	public DistributedLock obtain(Object lockKey) {
		Assert.notNull(lockKey, "Lock key must not be null");
		String key = lockKey.toString();
		this.registryLock.lock();
		try {
			RedkitLock lock = this.registry.computeIfAbsent(key, (k) -> new RedkitLock(this, k));
			lock.touch();
			if (this.registry.size() > this.capacity) {
				dropUnused(lock);
			}
			return lock;
		}
		finally {
			this.registryLock.unlock();
		}
	}

	/**
	 * Drops the locks last obtained or acquired more than {@code age} ms ago that no
	 * thread of this process holds or waits for.
	 * @param age the age in ms
	 */
	@Override
	public void expireUnusedOlderThan(long age) {
		long now = System.currentTimeMillis();
		this.registryLock.lock();
		try {
			for (Iterator<RedkitLock> it = this.registry.values().iterator(); it.hasNext();) {
				RedkitLock lock = it.next();
				if (now - lock.lastUsed() > age && !lock.isUsedInThisProcess()) {
					it.remove();
				}
			}
		}
		finally {
			this.registryLock.unlock();
		}
	}

	/**
	 * Renews the lease of a lock the current thread holds: the registry's lease, or
	 * Redkit's default lease when it has none (then only checks that the lock is still
	 * held: Redkit renews it).
	 * @param lockKey the key
	 * @throws IllegalStateException when the current thread does not hold the lock or it
	 * was lost
	 */
	@Override
	public void renewLock(Object lockKey) {
		lock(lockKey).renew(this.lease);
	}

	/**
	 * Sets the lease of a lock the current thread holds to {@code ttl} from now.
	 * @param lockKey the key
	 * @param ttl the new lease
	 * @throws IllegalStateException when the current thread does not hold the lock or it
	 * was lost
	 */
	@Override
	public void renewLock(Object lockKey, Duration ttl) {
		Assert.notNull(ttl, "TTL must not be null");
		lock(lockKey).renew(ttl);
	}

	private RedkitLock lock(Object lockKey) {
		Assert.notNull(lockKey, "Lock key must not be null");
		this.registryLock.lock();
		try {
			RedkitLock lock = this.registry.get(lockKey.toString());
			if (lock == null) {
				throw new IllegalStateException("Could not renew the lock at '" + lockKey + "': it is not held");
			}
			return lock;
		}
		finally {
			this.registryLock.unlock();
		}
	}

	// called with the registry lock held; keeps the lock being handed out
	private void dropUnused(RedkitLock obtained) {
		for (Iterator<RedkitLock> it = this.registry.values().iterator(); it.hasNext()
				&& this.registry.size() > this.capacity;) {
			RedkitLock lock = it.next();
			if (lock != obtained && !lock.isUsedInThisProcess()) {
				it.remove();
			}
		}
	}

	/**
	 * How many locks are kept in memory.
	 * @return the number of locks
	 */
	int size() {
		this.registryLock.lock();
		try {
			return this.registry.size();
		}
		finally {
			this.registryLock.unlock();
		}
	}

	DistributedLocks locks() {
		return this.locks;
	}

	String name() {
		return this.name;
	}

	@Nullable Duration lease() {
		return this.lease;
	}

	@Nullable TaskScheduler renewalScheduler() {
		return this.renewalScheduler;
	}

	@Override
	public String toString() {
		return "RedkitLockRegistry '" + this.name + "'";
	}

}
