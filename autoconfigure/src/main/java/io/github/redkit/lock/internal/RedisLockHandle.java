package io.github.redkit.lock.internal;

import java.time.Duration;
import java.util.List;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.core.RedkitObservation;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.LockUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.util.Assert;

/**
 * A lock acquired by {@link RedisDistributedLocks}: its keys, its random token, its
 * fencing token, and what this process knows about its lease. It extends and releases
 * itself through {@link LockScripts} and reports through {@link LockEvents}.
 */
final class RedisLockHandle implements LockHandle {

	private static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE / 2);

	private static final Log logger = LogFactory.getLog(RedisLockHandle.class);

	static final int HELD = 0;

	static final int LOST = 1;

	static final int CLOSED = 2;

	private final LockScripts scripts;

	private final LockEvents events;

	private final String name;

	private final String key;

	private final List<String> keys;

	private final String token;

	private final long fencingToken;

	private final long acquiredNanos;

	private volatile RedkitObservation hold = RedkitObservation.NONE;

	private final boolean renewed;

	private final AtomicInteger state = new AtomicInteger(HELD);

	// the lease ends at the latest here on the local clock: measured from the moment the
	// acquire or extend request was sent, so it never ends later than in Redis
	private volatile long leaseEndNanos;

	// the lease end the lock's record holds as far as this handle knows (Redis time in
	// µs, NaN when unknown): a release naming it exactly may be one native SET
	private volatile double recordLeaseEnd;

	volatile @Nullable ScheduledFuture<?> watch;

	RedisLockHandle(LockScripts scripts, LockEvents events, LockRequest request, List<String> keys, String token,
			long fencingToken, long sentNanos) {
		this.scripts = scripts;
		this.events = events;
		this.name = request.name();
		this.key = request.key();
		this.keys = keys;
		this.token = token;
		this.fencingToken = fencingToken;
		this.acquiredNanos = sentNanos;
		this.leaseEndNanos = sentNanos + nanos(request.lease());
		// a fresh fencing token is the Redis time the lease started at (when it is not,
		// the release's native form finds another record and the script decides)
		this.recordLeaseEnd = LockScripts.leaseEnd(fencingToken, request.lease().toMillis());
		this.renewed = request.renewed();
	}

	/**
	 * A duration in nanoseconds, at most 146 years: {@link System#nanoTime()} differences
	 * are only ordered below 2^63 ns (292 years), and a lease of a million years is held
	 * by this process as one of 146 years, longer than it lives.
	 */
	static long nanos(Duration duration) {
		return (duration.compareTo(LONGEST) > 0) ? LONGEST.toNanos() : duration.toNanos();
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
		OptionalDouble extended;
		try {
			extended = this.scripts.extend(this.keys, this.token, this.fencingToken, lease);
		}
		catch (DataAccessException ex) {
			throw new LockUnavailableException("Could not extend lock '" + this.key + "': " + ex.getMessage(), ex);
		}
		if (extended.isPresent()) {
			extended(sent, lease, extended.getAsDouble());
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
		release();
	}

	@Override
	public boolean release() {
		boolean leaseEnded = leaseEnded();
		int previous = finish();
		if (previous == CLOSED) {
			return false;
		}
		try {
			return released(previous, leaseEnded,
					this.scripts.release(this.keys, this.token, this.fencingToken, this.recordLeaseEnd));
		}
		catch (DataAccessException ex) {
			return notReleased(ex);
		}
	}

	@Override
	public CompletableFuture<Boolean> releaseAsync() {
		boolean leaseEnded = leaseEnded();
		int previous = finish();
		if (previous == CLOSED) {
			return CompletableFuture.completedFuture(false);
		}
		return this.scripts.releaseAsync(this.keys, this.token, this.fencingToken, this.recordLeaseEnd)
			.handle((released, failure) -> {
				if (failure == null) {
					return released(previous, leaseEnded, released);
				}
				Throwable ex = RedisScriptRunner.unwrap(failure);
				if (ex instanceof DataAccessException dataAccess) {
					return notReleased(dataAccess);
				}
				throw new CompletionException(ex);
			});
	}

	private boolean released(int previous, boolean leaseEnded, boolean released) {
		if (!released && previous == HELD) {
			this.events.lost(this);
		}
		return previous == HELD && released && !leaseEnded;
	}

	private boolean notReleased(DataAccessException ex) {
		// the lease ends the lock anyway; throwing here would hide the caller's outcome
		logger.warn("Could not release lock '" + this.key + "'; it ends with its lease: " + ex.getMessage());
		return false;
	}

	@Override
	public void release(Duration keepFor) {
		Assert.notNull(keepFor, "keepFor must not be null");
		// below a millisecond Redis would keep it for at least one: release at once
		if (keepFor.toMillis() <= 0) {
			release();
			return;
		}
		// closed before the call: the watchdog neither renews the lock nor reports its
		// end as a loss, since it ends because its holder asked so
		int previous = finish();
		if (previous == CLOSED) {
			return;
		}
		boolean kept;
		try {
			// no publish: the waiters' own retry is timed to the new end of the lease
			kept = this.scripts.keep(this.keys, this.token, this.fencingToken, keepFor);
		}
		catch (DataAccessException ex) {
			logger.warn("Could not release lock '" + this.key + "' after " + keepFor + "; it ends with its lease: "
					+ ex.getMessage());
			return;
		}
		if (!kept && previous == HELD) {
			this.events.lost(this);
		}
	}

	/**
	 * Closes the handle, stops its watch and records how long it was held.
	 * @return the state before
	 */
	private int finish() {
		int previous = this.state.getAndSet(CLOSED);
		if (previous != CLOSED) {
			ScheduledFuture<?> watch = this.watch;
			if (watch != null) {
				watch.cancel(false);
			}
			this.events.held(this.name, Duration.ofNanos(System.nanoTime() - this.acquiredNanos));
			this.hold.outcome((previous == LOST) ? "lost" : "released");
			this.hold.close();
		}
		return previous;
	}

	void observeHold(RedkitObservation hold) {
		this.hold = hold;
	}

	/**
	 * Takes note that the lock's record says others of this process wait after its
	 * holder: its release must publish, so it is the script's.
	 */
	void othersWait() {
		this.recordLeaseEnd = Double.NaN;
	}

	/**
	 * Takes note of an extension Redis applied.
	 * @param sentNanos when it was sent, on the local clock
	 * @param lease the new lease
	 * @param recordLeaseEnd the lease end Redis wrote into the record
	 */
	void extended(long sentNanos, Duration lease, double recordLeaseEnd) {
		// of two extensions in flight, the later reply may be the earlier write: then
		// the release finds another record and the script decides. An extension keeps
		// the record's waiting flag: a release that was the script's stays so
		if (!Double.isNaN(this.recordLeaseEnd)) {
			this.recordLeaseEnd = recordLeaseEnd;
		}
		long end = sentNanos + nanos(lease);
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
			this.events.lost(this);
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

	boolean renewed() {
		return this.renewed;
	}

	@Override
	public String toString() {
		return "LockHandle '" + this.key + "' (fencing token " + this.fencingToken + ", "
				+ (isHeld() ? "held" : "not held") + ")";
	}

}
