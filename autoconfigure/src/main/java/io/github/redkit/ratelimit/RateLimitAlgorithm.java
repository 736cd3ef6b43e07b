package io.github.redkit.ratelimit;

import io.github.redkit.ratelimit.internal.AlgorithmDescriptor;
import org.jspecify.annotations.Nullable;

/**
 * The counting algorithms. Every one decides all windows and identifiers of a call in one
 * script, with Redis' clock. All but {@link #SLIDING_LOG} keep constant memory per
 * identifier and window. The bound each one keeps against the worst client is stated per
 * constant and tested ({@code RateLimitBoundTests}). Each constant has one descriptor
 * that holds all its algorithm-specific Java (scripts, key suffix, window checks, record
 * layout, usage decoding): adding an algorithm is a constant, that class (named in
 * {@code AlgorithmDescriptor.of}, which the compiler holds complete) and its decision and
 * refund scripts.
 */
public enum RateLimitAlgorithm {

	/**
	 * A counter per calendar-aligned window. Simple and exact inside a window, but lets
	 * up to twice the limit through in one period that straddles a window boundary.
	 */
	FIXED_WINDOW("fixed-window"),

	/**
	 * The default: each period is split into {@linkplain RateLimitPolicy#subWindows()
	 * sub-windows}, and a call counts until one period after the end of its sub-window.
	 * Never more than the limit in any period; a permit comes back at most one sub-window
	 * later than an exact log would give it back. Constant memory: one count per
	 * sub-window.
	 */
	SLIDING_WINDOW("sliding-window"),

	/**
	 * Exact: every allowed call is kept, with its time, for the longest period. Never
	 * more than the limit in any period, and a permit comes back the moment the call that
	 * took it is one period old. Memory grows with the limit (one entry per call), so a
	 * window's limit may be at most {@value #SLIDING_LOG_MAX_LIMIT}: for login attempts,
	 * password resets and costly operations.
	 */
	SLIDING_LOG("sliding-log"),

	/**
	 * A token bucket (GCRA): {@code limit} tokens, refilled continuously at
	 * {@code limit / period}; bursts up to the bucket size, then a steady rate: up to
	 * {@code 2 × limit - 1} in one period (a full bucket, then one period's refill).
	 */
	TOKEN_BUCKET("token-bucket");

	/**
	 * The largest limit of a {@link #SLIDING_LOG} window: it keeps one entry per call.
	 */
	public static final long SLIDING_LOG_MAX_LIMIT = 10_000;

	private final String id;

	RateLimitAlgorithm(String id) {
		this.id = id;
	}

	/**
	 * The name used in configuration, e.g. {@code sliding-window}.
	 * @return the name
	 */
	public String id() {
		return this.id;
	}

	/**
	 * What keeps this algorithm from counting a window, said of the window's fields (e.g.
	 * {@code limit must be at most 10000 with the sliding-log algorithm, ...}) so that a
	 * message can name the window first.
	 * @param window the window
	 * @return the problem, or {@code null} when this algorithm can count the window
	 */
	public @Nullable String windowProblem(RateLimitWindow window) {
		return AlgorithmDescriptor.of(this).windowProblem(window);
	}

	/**
	 * Whether a limit of this algorithm may be marked {@code global} (counted across
	 * regions).
	 * @return {@code true} when it may
	 */
	public boolean countsAcrossRegions() {
		return AlgorithmDescriptor.of(this).countsAcrossRegions();
	}

}
