package io.github.redkit.lock;

import io.github.redkit.core.RedkitObservationKind;

/**
 * What distributed locks observe.
 */
public final class LockObservationKind {

	/** A lock acquisition, waiting included. */
	public static final RedkitObservationKind ACQUIRE = new RedkitObservationKind("redkit.lock.acquisition",
			"redkit.lock");

	/** The time a lock is held, from acquisition to release. */
	public static final RedkitObservationKind HOLD = new RedkitObservationKind("redkit.lock.hold", "redkit.lock");

	private LockObservationKind() {
	}

}
