package io.github.redkit.core;

/**
 * What a limit does when Redis cannot be reached in time: the rate and concurrency limits
 * share it.
 */
public enum LimitFailureMode {

	/** Let calls through (fail open), counted as {@code failed-open}. */
	ALLOW,

	/**
	 * Refuse calls (fail closed) with the limit's unavailable exception, counted as
	 * {@code failed-closed}.
	 */
	DENY

}
