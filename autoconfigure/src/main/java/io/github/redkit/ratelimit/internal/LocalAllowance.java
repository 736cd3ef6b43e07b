package io.github.redkit.ratelimit.internal;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * A named limit's local allowance: an instance takes {@code size} permits from Redis in
 * one decision and hands them out to the calls of one identifier itself, for at most
 * {@code maxAge} and never beyond the end of the (sub-)window the batch was counted in;
 * what it has not handed out by then is given back.
 *
 * @param size the permits a batch takes
 * @param maxAge the longest a batch is handed out
 */
public record LocalAllowance(int size, Duration maxAge) {

	/**
	 * Checks the values.
	 * @param size the permits a batch takes, at least 1
	 * @param maxAge the longest a batch is handed out, positive
	 */
	public LocalAllowance {
		Assert.isTrue(size >= 1, "A local allowance's size must be at least 1");
		Assert.isTrue(maxAge.compareTo(Duration.ZERO) > 0, "A local allowance's max-age must be positive");
	}

}
