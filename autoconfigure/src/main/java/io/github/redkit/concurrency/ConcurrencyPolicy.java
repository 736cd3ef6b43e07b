package io.github.redkit.concurrency;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * How many calls may be in flight at once per key, across every instance, and the lease
 * of each permit: a permit whose holder stops renewing it (a crashed instance) comes back
 * when its lease ends.
 *
 * @param limit calls in flight at most, per key
 * @param lease how long a permit lasts unless renewed; renewed every third of it while
 * held
 */
public record ConcurrencyPolicy(int limit, Duration lease) {

	/** The lease of a permit when none is configured. */
	public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

	public ConcurrencyPolicy {
		Assert.isTrue(limit > 0, () -> "A concurrency limit must be > 0 (was " + limit + ")");
		Assert.isTrue(lease != null && lease.toMillis() >= 1, () -> "A permit's lease must be at least 1ms");
	}

	/**
	 * A policy with the default lease.
	 * @param limit calls in flight at most, per key
	 * @return the policy
	 */
	public static ConcurrencyPolicy of(int limit) {
		return new ConcurrencyPolicy(limit, DEFAULT_LEASE);
	}

}
