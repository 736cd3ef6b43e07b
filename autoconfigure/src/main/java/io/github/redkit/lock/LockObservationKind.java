package io.github.redkit.lock;

import io.github.redkit.core.RedkitObservationKind;

/**
 * What distributed locks observe.
 */
public enum LockObservationKind implements RedkitObservationKind {

	/** A lock acquisition, waiting included. */
	ACQUIRE("redkit.lock.acquisition"),

	/** The time a lock is held, from acquisition to release. */
	HOLD("redkit.lock.hold");

	private final String observationName;

	LockObservationKind(String observationName) {
		this.observationName = observationName;
	}

	@Override
	public String observationName() {
		return this.observationName;
	}

	@Override
	public String nameKey() {
		return "redkit.lock";
	}

}
