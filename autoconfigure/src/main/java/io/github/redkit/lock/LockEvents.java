package io.github.redkit.lock;

import java.time.Duration;
import java.util.List;

import io.github.redkit.core.RedkitMeter;
import io.github.redkit.core.RedkitMetrics;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Where the lock classes report what happened: the meters (tag {@code name}, the lock's
 * name or key expression, never a key) and the application's {@link LockListener}s.
 */
final class LockEvents {

	private static final Log logger = LogFactory.getLog(LockEvents.class);

	/** Acquisition attempts; tag {@code outcome}: acquired, not_acquired or error. */
	static final RedkitMeter ACQUIRE = RedkitMeter.counter("redkit.lock.acquire", "Lock acquisition attempts");

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

	private final RedkitMetrics metrics;

	private final List<LockListener> listeners;

	LockEvents(RedkitMetrics metrics, List<LockListener> listeners) {
		this.metrics = metrics;
		this.listeners = List.copyOf(listeners);
	}

	void acquireAttempt(String name, String outcome, Duration waited) {
		this.metrics.increment(ACQUIRE, "name", name, "outcome", outcome);
		this.metrics.record(WAIT, waited.toNanos(), "name", name, "outcome", outcome);
	}

	void held(String name, Duration held) {
		this.metrics.record(HELD, held.toNanos(), "name", name);
	}

	void renewal(String name, String outcome) {
		this.metrics.increment(RENEWALS, "name", name, "outcome", outcome);
	}

	void lost(LockHandle handle) {
		this.metrics.increment(LEASE_LOST, "name", handle.name());
		for (LockListener listener : this.listeners) {
			try {
				listener.onLeaseLost(handle);
			}
			catch (RuntimeException ex) {
				logger.warn("LockListener " + listener + " failed for lock '" + handle.key() + "'", ex);
			}
		}
	}

}
