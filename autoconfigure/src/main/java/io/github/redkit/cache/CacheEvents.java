package io.github.redkit.cache;

/**
 * What Redkit's cache writer reports beyond Spring's own hit/miss/put statistics; the
 * Micrometer implementation turns these into {@code redkit.cache.*} meters.
 */
public interface CacheEvents {

	/** Reports nothing. */
	CacheEvents NONE = new CacheEvents() {
	};

	/**
	 * A caller found another instance computing the value and waited for it.
	 * @param cacheName the cache
	 * @param outcome {@code filled} (the value arrived), {@code timeout} (computed itself
	 * after the bounded wait)
	 * @param nanos how long it waited
	 */
	default void singleFlightWait(String cacheName, String outcome, long nanos) {
	}

	/**
	 * A caller computed a value while holding the single-flight lock.
	 * @param cacheName the cache
	 */
	default void singleFlightLoad(String cacheName) {
	}

	/**
	 * A hit was refreshed before it expired (probabilistic early expiration).
	 * @param cacheName the cache
	 */
	default void earlyRefresh(String cacheName) {
	}

	/**
	 * Redis failed and a value kept in memory was served instead.
	 * @param cacheName the cache
	 * @param outcome {@code stale} (a value was served) or {@code miss} (none was kept)
	 */
	default void redisError(String cacheName, String outcome) {
	}

}
