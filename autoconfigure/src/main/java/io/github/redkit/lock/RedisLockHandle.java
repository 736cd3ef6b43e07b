package io.github.redkit.lock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A lock acquired by {@link RedisDistributedLocks}: its keys, its random token, its
 * fencing token, and what this process knows about its lease.
 */
final class RedisLockHandle implements LockHandle {

	static final int HELD = 0;

	static final int LOST = 1;

	static final int CLOSED = 2;

	private final RedisDistributedLocks locks;

	private final String name;

	private final String key;

	private final List<String> keys;

	private final String token;

	private final long fencingToken;

	private final long acquiredNanos;

	private final boolean renewed;

	private final AtomicInteger state = new AtomicInteger(HELD);

	// the lease ends at the latest here on the local clock: measured from the moment the
	// acquire or extend request was sent, so it never ends later than in Redis
	private volatile long leaseEndNanos;

	volatile ScheduledFuture<?> watch;

	RedisLockHandle(RedisDistributedLocks locks, String name, String key, List<String> keys, String token,
			long fencingToken, long sentNanos, Duration lease, boolean renewed) {
		this.locks = locks;
		this.name = name;
		this.key = key;
		this.keys = keys;
		this.token = token;
		this.fencingToken = fencingToken;
		this.acquiredNanos = sentNanos;
		this.leaseEndNanos = sentNanos + lease.toNanos();
		this.renewed = renewed;
	}

	@Override
	public long fencingToken() {
		return this.fencingToken;
	}

	@Override
	public boolean isHeld() {
		return this.state.get() == HELD && System.nanoTime() - this.leaseEndNanos < 0;
	}

	@Override
	public boolean extend(Duration lease) {
		if (this.state.get() != HELD) {
			return false;
		}
		long sent = System.nanoTime();
		if (this.locks.extend(this, lease)) {
			extended(sent, lease);
			return true;
		}
		markLost();
		return false;
	}

	@Override
	public String key() {
		return this.key;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public void close() {
		closeAndCheck();
	}

	/**
	 * Releases the lock.
	 * @return {@code true} when this acquisition still held the lock up to the release;
	 * {@code false} when it had been lost (or was already closed)
	 */
	boolean closeAndCheck() {
		boolean leaseEnded = leaseEnded();
		int previous = this.state.getAndSet(CLOSED);
		if (previous == CLOSED) {
			return false;
		}
		ScheduledFuture<?> watch = this.watch;
		if (watch != null) {
			watch.cancel(false);
		}
		boolean released = this.locks.release(this, previous == HELD);
		return previous == HELD && released && !leaseEnded;
	}

	void extended(long sentNanos, Duration lease) {
		long end = sentNanos + lease.toNanos();
		if (end - this.leaseEndNanos > 0) {
			this.leaseEndNanos = end;
		}
	}

	/**
	 * Marks the lock lost, once: the metric and the listeners see each loss once.
	 * @return whether this call marked it
	 */
	boolean markLost() {
		if (this.state.compareAndSet(HELD, LOST)) {
			this.locks.lost(this);
			return true;
		}
		return false;
	}

	boolean leaseEnded() {
		return System.nanoTime() - this.leaseEndNanos >= 0;
	}

	long leaseEndNanos() {
		return this.leaseEndNanos;
	}

	int state() {
		return this.state.get();
	}

	List<String> redisKeys() {
		return this.keys;
	}

	String token() {
		return this.token;
	}

	long acquiredNanos() {
		return this.acquiredNanos;
	}

	boolean renewed() {
		return this.renewed;
	}

	@Override
	public String toString() {
		return "LockHandle '" + this.key + "' (fencing token " + this.fencingToken + ", "
				+ (isHeld() ? "held" : "not held") + ")";
	}

}
