package io.github.redkit.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Distributed locks on Redis keys, with fencing tokens. Acquire, release and extend are
 * one script call each; a waiting caller is woken by the release (pub/sub), with a
 * bounded, jittered retry as fallback. Fairness is not promised. When Redis cannot be
 * reached in time the call fails closed with a {@link LockUnavailableException}.
 */
public interface DistributedLocks {

	/** The metrics name of locks taken without a name. */
	String UNNAMED = "unnamed";

	/**
	 * Tries to acquire a lock, named {@link #UNNAMED} in metrics.
	 * @param key the key (any string; it is escaped)
	 * @param wait how long to wait, {@link Duration#ZERO} to try once
	 * @param lease how long the lock lives unless extended; {@code null} for
	 * {@code redkit.lock.lease-time}, renewed until the handle is closed
	 * @return the handle, or empty when the lock was not acquired in time
	 */
	default Optional<LockHandle> tryLock(String key, Duration wait, @Nullable Duration lease) {
		return tryLock(UNNAMED, key, wait, lease);
	}

	/**
	 * Tries to acquire a lock.
	 * @param name a low-cardinality name for metrics (never a key built from a request)
	 * @param key the key (any string; it is escaped)
	 * @param wait how long to wait, {@link Duration#ZERO} to try once
	 * @param lease how long the lock lives unless extended; {@code null} for
	 * {@code redkit.lock.lease-time}, renewed until the handle is closed
	 * @return the handle, or empty when the lock was not acquired in time
	 */
	Optional<LockHandle> tryLock(String name, String key, Duration wait, @Nullable Duration lease);

	/**
	 * Tries to acquire a lock without blocking the calling thread: the attempts are sent
	 * asynchronously, and the wait between them is a timer or the holder's release.
	 * Cancelling the answer stops the wait, and a lock acquired after that is released.
	 * @param name a low-cardinality name for metrics (never a key built from a request)
	 * @param key the key (any string; it is escaped)
	 * @param wait how long to wait, {@link Duration#ZERO} to try once
	 * @param lease how long the lock lives unless extended; {@code null} for
	 * {@code redkit.lock.lease-time}, renewed until the handle is closed
	 * @return the handle, or empty when the lock was not acquired in time; a
	 * {@link LockUnavailableException} when Redis could not be reached in time
	 */
	default CompletableFuture<Optional<LockHandle>> tryLockAsync(String name, String key, Duration wait,
			@Nullable Duration lease) {
		return CompletableFuture.supplyAsync(() -> tryLock(name, key, wait, lease));
	}

	/**
	 * Runs an action while holding a lock, and releases it afterwards. While the action
	 * runs, {@link #current()} returns the handle.
	 * @param <T> the result type
	 * @param key the key
	 * @param wait how long to wait
	 * @param lease the lease; {@code null} for the default lease, renewed while the
	 * action runs
	 * @param action the action
	 * @return what the action returned
	 * @throws LockNotAcquiredException when the lock was not acquired in time
	 * @throws LockLostException when the lease was lost while the action ran
	 */
	<T> @Nullable T withLock(String key, Duration wait, @Nullable Duration lease, Supplier<T> action);

	/**
	 * The innermost lock held by the running {@code @DistributedLock} method or
	 * {@link #withLock} action on this thread.
	 * @return the handle, or empty outside such a method
	 */
	static Optional<LockHandle> current() {
		return LockContext.current();
	}

}
