package io.github.redkit.cache;

import java.time.Duration;

/**
 * How Redkit's cache writer treats one cache.
 *
 * @param singleFlight whether only one instance in the cluster computes a missing value
 * of a {@code @Cacheable(sync = true)} method while the others wait
 * @param waitTime how long a caller waits for another instance's value before computing
 * it itself
 * @param lease how long the single-flight lock lives if its holder dies
 * @param earlyRefreshBeta {@code > 0} enables probabilistic early expiration with this
 * beta (1.0 is the usual value; higher refreshes earlier)
 * @param staleOnError whether a value kept in memory is served when Redis fails
 */
public record CachePolicy(boolean singleFlight, Duration waitTime, Duration lease, double earlyRefreshBeta,
		boolean staleOnError) {

	/** Spring's behaviour: nothing added. */
	public static final CachePolicy PLAIN = new CachePolicy(false, Duration.ZERO, Duration.ZERO, 0, false);

	/**
	 * Whether hits may be refreshed early.
	 * @return {@code true} when early refresh is on
	 */
	public boolean earlyRefresh() {
		return this.earlyRefreshBeta > 0;
	}

}
