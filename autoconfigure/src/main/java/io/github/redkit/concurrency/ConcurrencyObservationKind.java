package io.github.redkit.concurrency;

import io.github.redkit.core.RedkitObservationKind;

/**
 * What a concurrency limiter observes.
 */
public final class ConcurrencyObservationKind {

	/** A concurrency limit permit acquisition. */
	public static final RedkitObservationKind ACQUIRE = new RedkitObservationKind("redkit.concurrency.acquire",
			"redkit.limit");

	private ConcurrencyObservationKind() {
	}

}
