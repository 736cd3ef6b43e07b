package io.github.redkit.lock.internal;

import java.time.Duration;
import java.util.List;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.LockListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Where the lock classes report what happened: the meters ({@link LockMeters}) and the
 * application's {@link LockListener}s.
 */
final class LockEvents {

	private static final Log logger = LogFactory.getLog(LockEvents.class);

	private final RedkitMetrics metrics;

	private final List<LockListener> listeners;

	LockEvents(RedkitMetrics metrics, List<LockListener> listeners) {
		this.metrics = metrics;
		this.listeners = List.copyOf(listeners);
	}

	void acquireAttempt(String name, String outcome, Duration waited) {
		this.metrics.increment(LockMeters.ACQUIRE, "name", name, "outcome", outcome);
		this.metrics.record(LockMeters.WAIT, waited.toNanos(), "name", name, "outcome", outcome);
	}

	void held(String name, Duration held) {
		this.metrics.record(LockMeters.HELD, held.toNanos(), "name", name);
	}

	void renewal(String name, String outcome) {
		this.metrics.increment(LockMeters.RENEWALS, "name", name, "outcome", outcome);
	}

	void lost(LockHandle handle) {
		this.metrics.increment(LockMeters.LEASE_LOST, "name", handle.name());
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
