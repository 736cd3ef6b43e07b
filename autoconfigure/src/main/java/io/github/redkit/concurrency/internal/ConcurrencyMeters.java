package io.github.redkit.concurrency.internal;

import io.github.redkit.core.RedkitMeter;

/**
 * The meters of concurrency limits, recorded through
 * {@link io.github.redkit.core.RedkitMetrics}. Tags: {@code limit} (the limit's name,
 * never a key) and {@code outcome}.
 */
public final class ConcurrencyMeters {

	/**
	 * Permits; tag {@code outcome}: acquired, refused, failed-open, failed-closed, or
	 * lost (a held permit whose lease ended before it was given back).
	 */
	public static final RedkitMeter PERMITS = RedkitMeter.counter("redkit.concurrency.permits",
			"Concurrency-limit permits by outcome");

	/** How long acquired permits were held. */
	static final RedkitMeter HELD = RedkitMeter.timer("redkit.concurrency.held",
			"How long concurrency-limit permits were held");

	static final String ACQUIRED = "acquired";

	static final String REFUSED = "refused";

	static final String FAILED_OPEN = "failed-open";

	static final String FAILED_CLOSED = "failed-closed";

	static final String LOST = "lost";

	private ConcurrencyMeters() {
	}

}
