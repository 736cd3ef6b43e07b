package io.github.redkit.ratelimit;

import io.github.redkit.core.LimitFailureMode;

/**
 * What a rate limit does when Redis cannot be reached in time: the failure modes every
 * limit has ({@link LimitFailureMode}) and a third of its own, {@link #LOCAL}.
 */
public enum RateLimitFailureMode {

	/** Let calls through (fail open), counted as {@code failed-open}. */
	ALLOW,

	/**
	 * Refuse calls (fail closed) with {@link RateLimiterUnavailableException}, counted as
	 * {@code failed-closed}.
	 */
	DENY,

	/**
	 * Decide on each instance with an in-process limiter of each window's limit divided
	 * by the number of instances, counted as {@code local-allowed} or
	 * {@code local-denied}; its decisions are {@linkplain RateLimitDecision#local()
	 * marked}.
	 */
	LOCAL;

	/**
	 * The rate-limit failure mode of a failure mode every limit has.
	 * @param mode the shared failure mode
	 * @return the same mode
	 */
	public static RateLimitFailureMode of(LimitFailureMode mode) {
		return (mode == LimitFailureMode.ALLOW) ? ALLOW : DENY;
	}

}
