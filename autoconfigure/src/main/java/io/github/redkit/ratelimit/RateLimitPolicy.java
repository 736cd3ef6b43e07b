package io.github.redkit.ratelimit;

import java.util.List;

import org.springframework.util.Assert;

/**
 * How a limit counts: an algorithm and one or more windows, every one of which must allow
 * a call.
 *
 * @param algorithm the algorithm
 * @param windows the windows, at least one
 */
public record RateLimitPolicy(RateLimitAlgorithm algorithm, List<RateLimitWindow> windows) {

	/**
	 * Validates the policy.
	 * @param algorithm the algorithm
	 * @param windows the windows
	 */
	public RateLimitPolicy {
		Assert.notNull(algorithm, "A rate-limit policy needs an algorithm");
		Assert.notEmpty(windows, "A rate-limit policy needs at least one window");
		windows = List.copyOf(windows);
		long periods = windows.stream().map(RateLimitWindow::period).distinct().count();
		Assert.isTrue(periods == windows.size(), () -> "The windows of a rate-limit policy need distinct periods");
	}

	/**
	 * A policy with the default algorithm, {@link RateLimitAlgorithm#SLIDING_WINDOW}.
	 * @param windows the windows
	 * @return the policy
	 */
	public static RateLimitPolicy slidingWindow(RateLimitWindow... windows) {
		return new RateLimitPolicy(RateLimitAlgorithm.SLIDING_WINDOW, List.of(windows));
	}

	/**
	 * The smallest limit of the windows: a cost above it can never be allowed.
	 * @return the smallest limit
	 */
	public long smallestLimit() {
		return this.windows.stream().mapToLong(RateLimitWindow::limit).min().orElseThrow();
	}

}
