package io.github.redkit.cache.internal;

import io.github.redkit.core.RedkitMeter;

/**
 * The meters of Redkit's caching, recorded through
 * {@link io.github.redkit.core.RedkitMetrics}. Tags: {@code cache} and, where it applies,
 * {@code outcome}.
 */
final class CacheMeters {

	/** Waits for a value another instance was computing; outcome: filled or timeout. */
	static final RedkitMeter SINGLE_FLIGHT_WAITS = RedkitMeter.timer("redkit.cache.single-flight.waits",
			"Waits for a value another instance was computing");

	/** Values computed under the single-flight lock. */
	static final RedkitMeter SINGLE_FLIGHT_LOADS = RedkitMeter.counter("redkit.cache.single-flight.loads",
			"Values computed under the single-flight lock");

	/** Hits recomputed before they expired. */
	static final RedkitMeter EARLY_REFRESHES = RedkitMeter.counter("redkit.cache.early-refreshes",
			"Hits recomputed before they expired");

	/** Cache calls that failed in Redis; outcome: stale, miss or write. */
	static final RedkitMeter REDIS_ERRORS = RedkitMeter.counter("redkit.cache.redis-errors",
			"Cache calls that failed in Redis");

	private CacheMeters() {
	}

}
