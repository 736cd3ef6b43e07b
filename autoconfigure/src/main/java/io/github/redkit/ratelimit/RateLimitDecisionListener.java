package io.github.redkit.ratelimit;

import java.util.List;

import org.jspecify.annotations.Nullable;

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
	void allowed(String limitName, @Nullable RateLimitPolicy policy, RateLimitDecision decision);

	/**
	 * A call was allowed; this is the method {@link RateLimited} calls.
	 * @param limitName the limit
	 * @param policy its policy, or {@code null} when unknown
	 * @param decision the decision
	 * @param keys the identifiers the call was counted under; empty when the limit has no
	 * keys
	 */
	default void allowed(String limitName, @Nullable RateLimitPolicy policy, RateLimitDecision decision,
			List<String> keys) {
		allowed(limitName, policy, decision);
	}

}
