package io.github.redkit.cache.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Probabilistic early expiration ("XFetch"): a hit with {@code ttl} milliseconds left is
 * recomputed when {@code -delta × beta × ln(random) >= ttl}, where {@code delta} is how
 * long computing a value of that cache takes (a moving average measured here). Hot keys
 * are thus refreshed shortly before they expire, by one caller, while the others keep
 * getting the current value.
 */
final class EarlyRefresh {

	private final Map<String, Long> loadMillis = new ConcurrentHashMap<>();

	void recordLoad(String cacheName, long nanos) {
		long millis = Math.max(1, nanos / 1_000_000);
		this.loadMillis.merge(cacheName, millis, (old, latest) -> (old * 7 + latest) / 8);
	}

	boolean shouldRefresh(String cacheName, long remainingMillis, double beta) {
		Long delta = this.loadMillis.get(cacheName);
		if (delta == null || remainingMillis < 0) {
			return false;
		}
		double random = 1.0 - ThreadLocalRandom.current().nextDouble();
		return -delta * beta * Math.log(random) >= remainingMillis;
	}

}
