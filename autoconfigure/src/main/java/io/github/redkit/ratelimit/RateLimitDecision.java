package io.github.redkit.ratelimit;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The answer to one rate-limit call.
 *
 * @param allowed whether the call may proceed (its permits were taken)
 * @param remaining permits left in the most restrictive window for the most restricted
 * identifier; {@code -1} when Redis could not be asked and the call was let through
 * @param retryAfter when a refused call may succeed: the earliest moment at which the
 * same call finds room in every window; zero when allowed
 * @param resetAfter when the most restrictive window gives back at least one permit (the
 * HTTP {@code RateLimit} field's {@code t}); zero when it holds none
 * @param window the most restrictive window (the one that refused, or the one with the
 * fewest permits left); {@code null} when unknown
 * @param policy the policy that decided, so that an answer can describe it (the HTTP
 * {@code RateLimit-Policy} field); {@code null} when unknown
 * @param exceeded every window that refused the call, in the policy's order; empty when
 * allowed
 * @param decidedAt when Redis decided, on its clock (the time the script counted the call
 * at), or, for a {@code local} decision, when this instance decided, on its own clock;
 * {@code null} when nobody counted the call
 * @param local whether this instance's in-process limiter decided, because Redis could
 * not be asked and the failure mode is {@code local}: then {@code policy} carries the
 * local share of each window's limit, and {@code remaining} what this instance has left
 */
public record RateLimitDecision(boolean allowed, long remaining, Duration retryAfter, Duration resetAfter,
		@Nullable RateLimitWindow window, @Nullable RateLimitPolicy policy, List<RateLimitWindow> exceeded,
		@Nullable Instant decidedAt, boolean local) {

	/**
	 * Copies the exceeded windows.
	 * @param allowed whether the call may proceed
	 * @param remaining permits left
	 * @param retryAfter when a refused call may succeed
	 * @param resetAfter when the window gives back a permit
	 * @param window the most restrictive window
	 * @param policy the policy that decided
	 * @param exceeded the windows that refused the call
	 * @param decidedAt when Redis decided
	 * @param local whether this instance decided without Redis
	 */
	public RateLimitDecision {
		exceeded = List.copyOf(exceeded);
	}

	/**
	 * Creates a decision of Redis (not {@link #local()}).
	 * @param allowed whether the call may proceed
	 * @param remaining permits left
	 * @param retryAfter when a refused call may succeed
	 * @param resetAfter when the window gives back a permit
	 * @param window the most restrictive window
	 * @param policy the policy that decided
	 * @param exceeded the windows that refused the call
	 * @param decidedAt when Redis decided
	 */
	public RateLimitDecision(boolean allowed, long remaining, Duration retryAfter, Duration resetAfter,
			@Nullable RateLimitWindow window, @Nullable RateLimitPolicy policy, List<RateLimitWindow> exceeded,
			@Nullable Instant decidedAt) {
		this(allowed, remaining, retryAfter, resetAfter, window, policy, exceeded, decidedAt, false);
	}

	/**
	 * Creates a decision that does not say when Redis decided.
	 * @param allowed whether the call may proceed
	 * @param remaining permits left
	 * @param retryAfter when a refused call may succeed
	 * @param resetAfter when the window gives back a permit
	 * @param window the most restrictive window
	 * @param policy the policy that decided
	 * @param exceeded the windows that refused the call
	 */
	public RateLimitDecision(boolean allowed, long remaining, Duration retryAfter, Duration resetAfter,
			@Nullable RateLimitWindow window, @Nullable RateLimitPolicy policy, List<RateLimitWindow> exceeded) {
		this(allowed, remaining, retryAfter, resetAfter, window, policy, exceeded, null);
	}

	/**
	 * Creates a decision whose only exceeded window, when refused, is {@code window}.
	 * @param allowed whether the call may proceed
	 * @param remaining permits left
	 * @param retryAfter when a refused call may succeed
	 * @param resetAfter when the window gives back a permit
	 * @param window the most restrictive window
	 * @param policy the policy that decided
	 */
	public RateLimitDecision(boolean allowed, long remaining, Duration retryAfter, Duration resetAfter,
			@Nullable RateLimitWindow window, @Nullable RateLimitPolicy policy) {
		this(allowed, remaining, retryAfter, resetAfter, window, policy,
				(allowed || window == null) ? List.of() : List.of(window));
	}

	/**
	 * Creates a decision that does not name its policy.
	 * @param allowed whether the call may proceed
	 * @param remaining permits left
	 * @param retryAfter when a refused call may succeed
	 * @param resetAfter when the window gives back a permit
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
	 * @param resetAfter when the window gives back a permit
	 */
	public RateLimitDecision(boolean allowed, long remaining, Duration retryAfter, Duration resetAfter) {
		this(allowed, remaining, retryAfter, resetAfter, null, null);
	}

	/**
	 * The decision of a call let through because Redis could not be asked and the failure
	 * mode is {@code allow}: nothing was counted, so no count is known.
	 * @param policy the policy that could not be applied
	 * @return an allowing decision with an unknown remaining count
	 */
	public static RateLimitDecision failedOpen(RateLimitPolicy policy) {
		return new RateLimitDecision(true, -1, Duration.ZERO, Duration.ZERO, null, policy);
	}

}
