package io.github.redkit.ratelimit.internal;

import java.time.Duration;

import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitPolicy;

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

	/**
	 * Checks that this allowance can serve a limit: at start-up for the configured
	 * limits, and when a limit that has one is defined again at run time.
	 * @param what names the allowance in the message (its property)
	 * @param policy the limit's policy
	 * @param global whether the limit is decided across regions
	 * @throws IllegalArgumentException when it cannot
	 */
	public void check(String what, RateLimitPolicy policy, boolean global) {
		RateLimitAlgorithm algorithm = policy.algorithm();
		if (!AlgorithmDescriptor.of(algorithm).servesLocalAllowances()) {
			throw new IllegalArgumentException(what + " needs the "
					+ AlgorithmDescriptor.ids(AlgorithmDescriptor::servesLocalAllowances) + " algorithm (was "
					+ algorithm.id() + "): only their (sub-)windows end before a batch's permits could overrun them");
		}
		if (global) {
			throw new IllegalArgumentException(
					what + " cannot be used on a global limit: each region decides it on its own Redis");
		}
		if (this.size > policy.smallestLimit()) {
			throw new IllegalArgumentException(what + ".size must be at most the smallest window's limit, "
					+ policy.smallestLimit() + " (was " + this.size + ")");
		}
	}

}
