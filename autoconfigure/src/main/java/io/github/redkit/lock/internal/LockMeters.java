package io.github.redkit.lock.internal;

import io.github.redkit.core.RedkitMeter;

/**
 * The meters of locks, recorded through {@link LockEvents}. Tags: {@code name} (the
 * lock's name or key expression, never a key) and, where it applies, {@code outcome}.
 */
public final class LockMeters {

	/** Acquisition attempts; tag {@code outcome}: acquired, not_acquired or error. */
	public static final RedkitMeter ACQUIRE = RedkitMeter.counter("redkit.lock.acquire", "Lock acquisition attempts");

	/** Time spent acquiring, waiting included. */
	static final RedkitMeter WAIT = RedkitMeter.timer("redkit.lock.wait",
			"Time spent acquiring a lock, waiting included");

	/** Time a lock was held. */
	static final RedkitMeter HELD = RedkitMeter.timer("redkit.lock.held", "Time a lock was held");

	/** Held locks whose lease was lost. */
	static final RedkitMeter LEASE_LOST = RedkitMeter.counter("redkit.lock.lease.lost",
			"Held locks whose lease was lost");

	/** Lease renewals by the watchdog; tag {@code outcome}: renewed, lost or error. */
	static final RedkitMeter RENEWALS = RedkitMeter.counter("redkit.lock.renewals", "Lease renewals by the watchdog");

	private LockMeters() {
	}

}
