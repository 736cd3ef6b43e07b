package io.github.redkit.ratelimit;

/**
 * The counting algorithms. Every one decides all windows and identifiers of a call in one
 * script, with Redis' clock, and keeps constant memory per identifier and window.
 */
public enum RateLimitAlgorithm {

	/**
	 * A counter per calendar-aligned window. Simple and exact inside a window, but lets
	 * up to twice the limit through across a window boundary.
	 */
	FIXED_WINDOW("fixed-window", "fw", "ratelimit_fixed_window"),

	/**
	 * The current window's count plus the previous window's count weighted by how much of
	 * it the sliding window still covers: no burst at boundaries, two numbers per window.
	 */
	SLIDING_WINDOW("sliding-window", "sw", "ratelimit_sliding_window"),

	/**
	 * A token bucket (GCRA): {@code limit} tokens, refilled continuously at
	 * {@code limit / period}; bursts up to the bucket size, then a steady rate.
	 */
	TOKEN_BUCKET("token-bucket", "tb", "ratelimit_token_bucket");

	private final String id;

	private final String keyPart;

	private final String script;

	RateLimitAlgorithm(String id, String keyPart, String script) {
		this.id = id;
		this.keyPart = keyPart;
		this.script = script;
	}

	/**
	 * The name used in configuration, e.g. {@code sliding-window}.
	 * @return the name
	 */
	public String id() {
		return this.id;
	}

	String keyPart() {
		return this.keyPart;
	}

	String scriptName() {
		return this.script;
	}

}
