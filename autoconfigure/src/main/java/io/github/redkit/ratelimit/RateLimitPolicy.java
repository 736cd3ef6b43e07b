package io.github.redkit.ratelimit;

import java.util.List;

import org.springframework.util.Assert;

/**
 * How a limit counts: an algorithm and one or more windows, every one of which must allow
 * a call.
 *
 * @param algorithm the algorithm
 * @param windows the windows, at least one
 * @param subWindows how many sub-windows a {@link RateLimitAlgorithm#SLIDING_WINDOW}
 * period is split into, from 1 to {@value #MAX_SUB_WINDOWS}: a permit comes back at most
 * {@code period / subWindows} later than an exact log would give it back, for one count
 * per sub-window; other algorithms ignore it
 */
public record RateLimitPolicy(RateLimitAlgorithm algorithm, List<RateLimitWindow> windows, int subWindows) {

	/** The sub-windows of a sliding window unless configured otherwise. */
	public static final int DEFAULT_SUB_WINDOWS = 10;

	/** The most windows a policy may have. */
	public static final int MAX_WINDOWS = 32;

	/** The most sub-windows a sliding window may have. */
	public static final int MAX_SUB_WINDOWS = 100;

	/**
	 * Validates the policy.
	 * @param algorithm the algorithm
	 * @param windows the windows
	 * @param subWindows the sub-windows of a sliding window
	 */
	public RateLimitPolicy {
		Assert.notNull(algorithm, "A rate-limit policy needs an algorithm");
		Assert.notEmpty(windows, "A rate-limit policy needs at least one window");
		windows = List.copyOf(windows);
		long periods = windows.stream().map(RateLimitWindow::period).distinct().count();
		Assert.isTrue(periods == windows.size(), () -> "The windows of a rate-limit policy need distinct periods");
		int count = windows.size();
		Assert.isTrue(count <= MAX_WINDOWS,
				() -> "A rate-limit policy has at most " + MAX_WINDOWS + " windows (was " + count + ")");
		Assert.isTrue(subWindows >= 1 && subWindows <= MAX_SUB_WINDOWS,
				() -> "A sliding window's sub-windows must be 1 to " + MAX_SUB_WINDOWS + " (was " + subWindows + ")");
		for (RateLimitWindow window : windows) {
			String problem = algorithm.windowProblem(window);
			Assert.isTrue(problem == null, () -> "A rate-limit window's " + problem);
		}
	}

	/**
	 * A policy with {@value #DEFAULT_SUB_WINDOWS} sub-windows per sliding window.
	 * @param algorithm the algorithm
	 * @param windows the windows
	 */
	public RateLimitPolicy(RateLimitAlgorithm algorithm, List<RateLimitWindow> windows) {
		this(algorithm, windows, DEFAULT_SUB_WINDOWS);
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
