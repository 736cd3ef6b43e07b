package io.github.redkit.idempotency;

import io.github.redkit.core.RedkitObservationKind;

/**
 * What idempotent steps observe.
 */
public enum IdempotencyObservationKind implements RedkitObservationKind {

	/** An idempotent step claim. */
	CLAIM("redkit.idempotency.claim");

	private final String observationName;

	IdempotencyObservationKind(String observationName) {
		this.observationName = observationName;
	}

	@Override
	public String observationName() {
		return this.observationName;
	}

	@Override
	public String nameKey() {
		return "redkit.step";
	}

}
