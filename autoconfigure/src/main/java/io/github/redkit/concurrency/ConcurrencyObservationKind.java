package io.github.redkit.concurrency;

import io.github.redkit.core.RedkitObservationKind;

/**
 * What a concurrency limiter observes.
 */
public enum ConcurrencyObservationKind implements RedkitObservationKind {

	/** A concurrency limit permit acquisition. */
	ACQUIRE("redkit.concurrency.acquire");

	private final String observationName;

	ConcurrencyObservationKind(String observationName) {
		this.observationName = observationName;
	}

	@Override
	public String observationName() {
		return this.observationName;
	}

	@Override
	public String nameKey() {
		return "redkit.limit";
	}

}
