package io.github.redkit.integration;

import java.time.Duration;
import java.time.Instant;
import java.util.ConcurrentModificationException;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.LockUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.util.Assert;

/**
 * One lock of a {@link RedkitLockRegistry}: a local reentrant lock that orders the
 * threads of this process, and while a thread holds it, one Redkit lock handle on the key
 * in Redis.
 */
final class RedkitLock implements DistributedLock {

	private static final Log logger = LogFactory.getLog(RedkitLock.class);

	// lock() waits in slices of this; the release wakes a waiting slice anyway
	private static final Duration WAIT_SLICE = Duration.ofMinutes(1);

	private final RedkitLockRegistry registry;

	private final String key;

	private final String redisKey;

	private final ReentrantLock local = new ReentrantLock();

	// set and cleared by the holding thread; volatile for renewals and toString
	private volatile @Nullable LockHandle handle;

	private volatile @Nullable ScheduledFuture<?> renewal;

	private volatile long lastUsed = System.currentTimeMillis();

	RedkitLock(RedkitLockRegistry registry, String key) {
		this.registry = registry;
		this.key = key;
		this.redisKey = registry.name() + ":" + key;
	}

	@Override
	public void lock() {
		lockUninterruptibly(this.registry.lease());
	}

	@Override
	public void lock(Duration ttl) {
		Assert.notNull(ttl, "TTL must not be null");
		lockUninterruptibly(ttl);
	}

	private void lockUninterruptibly(@Nullable Duration lease) {
		this.local.lock();
		// lock() ignores interrupts, and an interrupted thread cannot wait for Redis: the
		// flag is set aside until the lock is acquired
		boolean interrupted = Thread.interrupted();
		boolean acquired = false;
		try {
			while (!acquired) {
				acquired = acquire(WAIT_SLICE, lease);
				interrupted |= Thread.interrupted();
			}
		}
		finally {
			if (!acquired) {
				this.local.unlock();
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public void lockInterruptibly() throws InterruptedException {
		this.local.lockInterruptibly();
		boolean acquired = false;
		try {
			while (!acquired) {
				acquired = acquire(WAIT_SLICE, this.registry.lease());
				if (!acquired && Thread.interrupted()) {
					throw new InterruptedException("Interrupted while waiting for the lock at '" + this.key + "'");
				}
			}
		}
		finally {
			if (!acquired) {
				this.local.unlock();
			}
		}
	}

	@Override
	public boolean tryLock() {
		if (!this.local.tryLock()) {
			return false;
		}
		boolean interrupted = Thread.interrupted();
		boolean acquired = false;
		try {
			acquired = acquire(Duration.ZERO, this.registry.lease());
		}
		finally {
			if (!acquired) {
				this.local.unlock();
			}
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
		return acquired;
	}

	@Override
	public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
		return tryLock(Duration.ofNanos(Math.max(0, unit.toNanos(time))), this.registry.lease());
	}

	@Override
	public boolean tryLock(Duration waitTime, @Nullable Duration ttl) throws InterruptedException {
		Assert.notNull(waitTime, "Wait time must not be null");
		long deadline = System.nanoTime() + Math.max(0, waitTime.toNanos());
		if (!this.local.tryLock(Math.max(0, waitTime.toNanos()), TimeUnit.NANOSECONDS)) {
			return false;
		}
		boolean acquired = false;
		try {
			acquired = acquire(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())), ttl);
			if (!acquired && Thread.interrupted()) {
				throw new InterruptedException("Interrupted while waiting for the lock at '" + this.key + "'");
			}
		}
		finally {
			if (!acquired) {
				this.local.unlock();
			}
		}
		return acquired;
	}

	// called by the thread that holds the local lock, once per hold count
	private boolean acquire(Duration wait, @Nullable Duration lease) {
		LockHandle current = this.handle;
		if (current != null && stillHeld(current, lease)) {
			// reentered: like RedisLockRegistry, a reentrant acquire renews the lease
			// (the
			// heartbeat of leader election relies on it)
			this.lastUsed = System.currentTimeMillis();
			return true;
		}
		Optional<LockHandle> acquired;
		try {
			acquired = this.registry.locks().tryLock(this.registry.name(), this.redisKey, wait, lease);
		}
		catch (LockUnavailableException ex) {
			if (Thread.currentThread().isInterrupted()) {
				// the wait for Redis was interrupted, not lost: the caller decides
				return false;
			}
			throw ex;
		}
		if (acquired.isEmpty()) {
			return false;
		}
		if (current != null) {
			// the lease of the outer acquisition ran out and the key was free again
			current.close();
		}
		LockHandle taken = acquired.get();
		this.handle = taken;
		this.lastUsed = System.currentTimeMillis();
		scheduleRenewal(taken, lease);
		return true;
	}

	private static boolean stillHeld(LockHandle handle, @Nullable Duration lease) {
		// without a lease Redkit renews the lock and knows when it was lost
		return (lease != null) ? handle.extend(lease) : handle.isHeld();
	}

	@Override
	public void unlock() {
		if (!this.local.isHeldByCurrentThread()) {
			throw new IllegalMonitorStateException("You do not own the lock at '" + this.key + "'");
		}
		if (this.local.getHoldCount() > 1) {
			this.local.unlock();
			return;
		}
		LockHandle current = this.handle;
		this.handle = null;
		cancelRenewal();
		// an interrupted thread cannot wait for Redis's answer, and a lock left in Redis
		// would block the other instances until its lease ends (leader election unlocks
		// from the interrupted thread it stops): release first, then restore the flag
		boolean interrupted = Thread.interrupted();
		try {
			if (current != null && !current.release()) {
				throw new ConcurrentModificationException("The lock at '" + this.key
						+ "' was not held in Redis until released (its lease ran out, or Redis could not be reached): "
						+ "the data it protects may have been changed meanwhile");
			}
		}
		finally {
			this.local.unlock();
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	void renew(@Nullable Duration ttl) {
		LockHandle current = this.handle;
		if (!this.local.isHeldByCurrentThread() || current == null) {
			throw new IllegalStateException("Could not renew the lock at '" + this.key + "': it is not held");
		}
		if (!stillHeld(current, ttl)) {
			throw new IllegalStateException("Could not renew the lock at '" + this.key + "': it was lost");
		}
	}

	private void scheduleRenewal(LockHandle taken, @Nullable Duration lease) {
		cancelRenewal();
		TaskScheduler scheduler = this.registry.renewalScheduler();
		if (lease == null || scheduler == null) {
			return;
		}
		Duration period = Duration.ofMillis(Math.max(1, lease.toMillis() / 3));
		this.renewal = scheduler.scheduleWithFixedDelay(() -> renewInBackground(taken, lease),
				Instant.now().plus(period), period);
	}

	private void renewInBackground(LockHandle taken, Duration lease) {
		try {
			if (!taken.extend(lease) && this.handle == taken) {
				cancelRenewal();
			}
		}
		catch (LockUnavailableException ex) {
			// the next renewal tries again; the lease may still be long enough
			logger.debug("Could not renew the lock at '" + this.key + "'", ex);
		}
	}

	private void cancelRenewal() {
		ScheduledFuture<?> renewal = this.renewal;
		if (renewal != null) {
			renewal.cancel(false);
			this.renewal = null;
		}
	}

	@Override
	public Condition newCondition() {
		throw new UnsupportedOperationException("Conditions are not supported by Redkit locks");
	}

	void touch() {
		this.lastUsed = System.currentTimeMillis();
	}

	long lastUsed() {
		return this.lastUsed;
	}

	boolean hasQueuedThreads() {
		return this.local.hasQueuedThreads();
	}

	boolean isUsedInThisProcess() {
		return this.local.isLocked() || this.local.hasQueuedThreads();
	}

	@Override
	public String toString() {
		LockHandle current = this.handle;
		return "RedkitLock '" + this.key + "' of " + this.registry + " ("
				+ ((current != null) ? "held, fencing token " + current.fencingToken() : "not held") + ")";
	}

}
