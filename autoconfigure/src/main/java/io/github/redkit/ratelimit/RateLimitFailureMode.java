package io.github.redkit.ratelimit;

/**
 * What a rate limiter does when Redis cannot be reached in time.
 */
public enum RateLimitFailureMode {

	/** Let calls through (fail open), counted as {@code failed-open}. */
	ALLOW,

	/**
	 * Refuse calls (fail closed) with {@link RateLimiterUnavailableException}, counted as
	 * {@code failed-closed}.
	 */
	DENY

}
