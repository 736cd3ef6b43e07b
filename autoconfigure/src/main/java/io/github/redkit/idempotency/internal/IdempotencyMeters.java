package io.github.redkit.idempotency.internal;

import io.github.redkit.core.RedkitMeter;

/**
 * The meters of idempotent steps, recorded through
 * {@link io.github.redkit.core.RedkitMetrics}. Tags: {@code step} (never an operation id)
 * and {@code outcome}.
 */
final class IdempotencyMeters {

	/**
	 * Step claims; outcome: claimed, duplicate, out_of_order, in_progress, key_reused,
	 * lost or unavailable.
	 */
	static final RedkitMeter STEPS = RedkitMeter.counter("redkit.idempotency.steps", "Step claims by step and outcome");

	private IdempotencyMeters() {
	}

}
