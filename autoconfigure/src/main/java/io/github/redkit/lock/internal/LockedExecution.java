package io.github.redkit.lock.internal;

import java.time.Duration;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockContext;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.LockLostException;
import io.github.redkit.lock.LockNotAcquiredException;
import org.jspecify.annotations.Nullable;

/**
 * Runs code under a lock: the shared path of {@code @DistributedLock} and
 * {@link DistributedLocks#withLock}. Refuses re-entrant acquisition, makes the handle
 * reachable through {@link DistributedLocks#current()}, and reports a lease lost while
 * the code ran as a {@link LockLostException}.
 */
final class LockedExecution {

	private LockedExecution() {
	}

	static <T> @Nullable T run(DistributedLocks locks, String name, String key, Duration wait, @Nullable Duration lease,
			LockedCall<T> call) throws Throwable {
		if (LockContext.holds(key)) {
			// waiting for ourselves would only end when the wait time runs out
			throw new IllegalStateException("Lock '" + key + "' is already held by this thread: Redkit locks are not"
					+ " re-entrant (use DistributedLocks.current() to reach the held lock)");
		}
		long start = System.nanoTime();
		LockHandle handle = locks.tryLock(name, key, wait, lease)
			.orElseThrow(() -> new LockNotAcquiredException(name, key, Duration.ofNanos(System.nanoTime() - start)));
		T result;
		try {
			try (LockContext.Binding binding = LockContext.bind(handle)) {
				result = call.call();
			}
		}
		catch (Throwable ex) {
			handle.close();
			throw ex;
		}
		if (!handle.release()) {
			throw new LockLostException(handle);
		}
		return result;
	}

	/**
	 * Code run under a lock.
	 *
	 * @param <T> the result type
	 */
	@FunctionalInterface
	interface LockedCall<T> {

		@Nullable T call() throws Throwable;

	}

}
