package io.github.redkit.lock;

import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The locks held by the running {@code @DistributedLock} methods and {@code withLock}
 * actions of this thread, innermost last. A handle given to another thread keeps working,
 * but {@link #current()} answers only on the thread that runs the method. Adapters whose
 * callers acquire, run and release in separate calls (ShedLock's {@code LockProvider})
 * make their handle current with {@link #bind(LockHandle)}.
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

	/**
	 * Whether this thread holds a lock on a key (through a locked method, a
	 * {@code withLock} action or a binding) whose lease has not been lost.
	 * @param key the lock's key
	 * @return whether a held lock of this thread has that key
	 */
	public static boolean holds(String key) {
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

	/**
	 * Makes a handle the innermost lock of this thread until the returned binding is
	 * closed: for code that acquires a lock in one call and releases it in another,
	 * around work run on this thread in between.
	 * @param handle the held lock
	 * @return the binding to close when the work is done (on any thread)
	 */
	public static Binding bind(LockHandle handle) {
		Deque<LockHandle> held = held();
		held.addLast(handle);
		return new Binding(held, handle);
	}

	private static Deque<LockHandle> held() {
		Deque<LockHandle> held = HELD.get();
		if (held == null) {
			// concurrent: a binding may be closed from another thread
			held = new ConcurrentLinkedDeque<>();
			HELD.set(held);
		}
		return held;
	}

	/**
	 * A handle made current by {@link LockContext#bind(LockHandle)}; closing it, once, on
	 * any thread, takes the handle out of its thread's locks.
	 */
	public static final class Binding implements AutoCloseable {

		private final Deque<LockHandle> held;

		private final LockHandle handle;

		private final AtomicBoolean closed = new AtomicBoolean();

		private Binding(Deque<LockHandle> held, LockHandle handle) {
			this.held = held;
			this.handle = handle;
		}

		@Override
		public void close() {
			if (this.closed.compareAndSet(false, true)) {
				this.held.removeLastOccurrence(this.handle);
				if (this.held.isEmpty() && HELD.get() == this.held) {
					HELD.remove();
				}
			}
		}

	}

}
