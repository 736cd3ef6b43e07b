package io.github.redkit.ratelimit;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * One window of a rate limit: at most {@code limit} permits per {@code period} (for a
 * token bucket: a bucket of {@code limit} tokens refilled at {@code limit / period}).
 *
 * @param limit permits per period, at least 1
 * @param period the period, at least 1 ms
 */
public record RateLimitWindow(long limit, Duration period) {

	/**
	 * Validates the window.
	 * @param limit permits per period
	 * @param period the period
	 */
	public RateLimitWindow {
		Assert.isTrue(limit > 0, () -> "A rate-limit window's limit must be > 0 (was " + limit + ")");
		Assert.isTrue(period != null && period.toMillis() >= 1,
				() -> "A rate-limit window's period must be at least 1ms (was " + period + ")");
	}

	/**
	 * A window of {@code limit} permits per {@code period}.
	 * @param limit permits per period
	 * @param period the period
	 * @return the window
	 */
	public static RateLimitWindow of(long limit, Duration period) {
		return new RateLimitWindow(limit, period);
	}

}
