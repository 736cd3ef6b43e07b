package io.github.redkit.idempotency;

import io.github.redkit.core.RedkitObservationKind;

/**
 * What idempotent steps observe.
 */
public final class IdempotencyObservationKind {

	/** An idempotent step claim. */
	public static final RedkitObservationKind CLAIM = new RedkitObservationKind("redkit.idempotency.claim",
			"redkit.step");

	private IdempotencyObservationKind() {
	}

}
