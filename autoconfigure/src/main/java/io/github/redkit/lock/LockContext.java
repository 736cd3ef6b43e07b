package io.github.redkit.lock;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * The locks held by the running {@code @DistributedLock} methods and {@code withLock}
 * actions of this thread, innermost last. A handle given to another thread keeps working,
 * but {@link #current()} answers only on the thread that runs the method.
 */
public final class LockContext {

	private static final ThreadLocal<Deque<LockHandle>> HELD = new ThreadLocal<>();

	private LockContext() {
	}

	/**
	 * The innermost lock of this thread.
	 * @return the handle, or empty outside a locked method
	 */
	public static Optional<LockHandle> current() {
		Deque<LockHandle> held = HELD.get();
		return (held != null) ? Optional.ofNullable(held.peekLast()) : Optional.empty();
	}

	static boolean holds(String key) {
		Deque<LockHandle> held = HELD.get();
		if (held != null) {
			for (LockHandle handle : held) {
				if (handle.key().equals(key) && handle.isHeld()) {
					return true;
				}
			}
		}
		return false;
	}

	static <T> @Nullable T runWith(LockHandle handle, LockedCall<T> action) throws Throwable {
		Deque<LockHandle> held = HELD.get();
		if (held == null) {
			held = new ArrayDeque<>(2);
			HELD.set(held);
		}
		held.addLast(handle);
		try {
			return action.call();
		}
		finally {
			held.removeLast();
			if (held.isEmpty()) {
				HELD.remove();
			}
		}
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
