package io.github.redkit.ratelimit;

/**
 * Told about every call {@link RateLimited} lets through, e.g. to write the
 * {@code RateLimit} response headers.
 */
@FunctionalInterface
public interface RateLimitDecisionListener {

	/**
	 * A call was allowed.
	 * @param limitName the limit
	 * @param policy its policy, or {@code null} when unknown
	 * @param decision the decision
	 */
	void allowed(String limitName, RateLimitPolicy policy, RateLimitDecision decision);

}
