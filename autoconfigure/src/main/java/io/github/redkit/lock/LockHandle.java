package io.github.redkit.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One acquisition of a distributed lock. It belongs to the acquisition (a random token),
 * not to a thread: any thread may extend or close it. Closing releases the lock if it is
 * still held; closing twice does nothing.
 */
public interface LockHandle extends AutoCloseable {

	/**
	 * A number that strictly increases with every acquisition of this key. Pass it to the
	 * resource the lock protects, which refuses a token lower than the highest it has
	 * seen: that stops a holder that lost its lease (a long pause, a failover) from
	 * overwriting the work of the next holder.
	 * @return the fencing token
	 */
	long fencingToken();

	/**
	 * Whether this handle still holds the lock as far as it knows: not closed, not found
	 * lost by a renewal or a release, and its lease has not run out on the local clock.
	 * @return {@code true} while held
	 */
	boolean isHeld();

	/**
	 * Sets the lease to {@code lease} from now, if this acquisition still holds the lock.
	 * @param lease the new lease
	 * @return {@code false} when the lock was lost (then {@link #isHeld()} is false too)
	 * @throws LockUnavailableException when Redis did not answer in time
	 */
	boolean extend(Duration lease);

	/**
	 * The key the lock was taken on.
	 * @return the key, as given to {@link DistributedLocks}
	 */
	String key();

	/**
	 * The lock's name in metrics: the annotation's key expression, or the name given to
	 * {@link DistributedLocks#tryLock(String, String, Duration, Duration)}.
	 * @return the name
	 */
	String name();

	/**
	 * Releases the lock if this acquisition still holds it (one round trip). A failure to
	 * reach Redis is logged, not thrown: the lease ends the lock anyway.
	 */
	@Override
	void close();

	/**
	 * Releases the lock, as {@link #close()}, and tells whether this acquisition still
	 * held it up to the release: its lease had not run out and nobody else had taken it.
	 * @return {@code true} when the lock was held until released
	 */
	default boolean release() {
		boolean held = isHeld();
		close();
		return held;
	}

	/**
	 * Releases the lock, as {@link #release()}, without blocking the calling thread.
	 * @return whether the lock was held until released; never completes exceptionally
	 * because Redis could not be reached (that is logged, and answers {@code false})
	 */
	default CompletableFuture<Boolean> releaseAsync() {
		return CompletableFuture.supplyAsync(this::release);
	}

	/**
	 * Releases the lock but keeps it taken until {@code keepFor} from now (one round
	 * trip): nobody acquires it before then, waiters included, and it then frees itself.
	 * The handle is done at once, as after {@link #close()}: no renewal, and the lock
	 * running out afterwards is not a lost lease. A zero or negative {@code keepFor}
	 * releases at once. A failure to reach Redis is logged, not thrown.
	 * @param keepFor how long the lock stays taken after this call
	 */
	default void release(Duration keepFor) {
		if (keepFor.isNegative() || keepFor.isZero()) {
			close();
			return;
		}
		throw new UnsupportedOperationException(getClass().getName() + " cannot keep a released lock");
	}

}
