package io.github.redkit.ratelimit;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The answer to one rate-limit call.
 *
 * @param allowed whether the call may proceed (its permits were taken)
 * @param remaining permits left in the most restrictive window for the most restricted
 * identifier; {@code -1} when Redis could not be asked and the call was let through
 * @param retryAfter when a refused call may succeed; zero when allowed
 * @param resetAfter when the most restrictive window will have forgotten every counted
 * call
 * @param window the most restrictive window (the one that refused, or the one with the
 * fewest permits left); {@code null} when unknown
 * @param policy the policy that decided, so that an answer can describe it (the HTTP
 * {@code RateLimit-Policy} field); {@code null} when unknown
 */
public record RateLimitDecision(boolean allowed, long remaining, Duration retryAfter, Duration resetAfter,
		@Nullable RateLimitWindow window, @Nullable RateLimitPolicy policy) {

	/**
	 * Creates a decision that does not name its policy.
	 * @param allowed whether the call may proceed
	 * @param remaining permits left
	 * @param retryAfter when a refused call may succeed
	 * @param resetAfter when the window will have forgotten every counted call
	 * @param window the most restrictive window
	 */
	public RateLimitDecision(boolean allowed, long remaining, Duration retryAfter, Duration resetAfter,
			@Nullable RateLimitWindow window) {
		this(allowed, remaining, retryAfter, resetAfter, window, null);
	}

	/**
	 * Creates a decision that does not name its window.
	 * @param allowed whether the call may proceed
	 * @param remaining permits left
	 * @param retryAfter when a refused call may succeed
	 * @param resetAfter when the window will have forgotten every counted call
	 */
	public RateLimitDecision(boolean allowed, long remaining, Duration retryAfter, Duration resetAfter) {
		this(allowed, remaining, retryAfter, resetAfter, null, null);
	}

	static RateLimitDecision failedOpen(RateLimitPolicy policy) {
		return new RateLimitDecision(true, -1, Duration.ZERO, Duration.ZERO, null, policy);
	}

}
