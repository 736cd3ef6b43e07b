package io.github.redkit.lock;

import java.time.Duration;

/**
 * What the locks report; {@link #NONE} when Micrometer is absent. Every method is tagged
 * with the lock's name, never with an evaluated key.
 */
public interface LockMetrics {

	/** Reports nothing. */
	LockMetrics NONE = new LockMetrics() {
	};

	/**
	 * One acquisition attempt ended.
	 * @param name the lock's name
	 * @param outcome {@code acquired}, {@code not_acquired} or {@code error}
	 * @param waited how long it took
	 */
	default void acquireAttempt(String name, String outcome, Duration waited) {
	}

	/**
	 * A lock was released (or found lost) after being held.
	 * @param name the lock's name
	 * @param held how long it was held
	 */
	default void held(String name, Duration held) {
	}

	/**
	 * A held lock was lost.
	 * @param name the lock's name
	 */
	default void leaseLost(String name) {
	}

	/**
	 * A renewal ended.
	 * @param name the lock's name
	 * @param outcome {@code renewed}, {@code lost} or {@code error}
	 */
	default void renewal(String name, String outcome) {
	}

}
