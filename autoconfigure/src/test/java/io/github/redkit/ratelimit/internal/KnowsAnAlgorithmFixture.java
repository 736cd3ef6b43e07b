package io.github.redkit.ratelimit.internal;

import io.github.redkit.ratelimit.RateLimitAlgorithm;

/**
 * A class that knows algorithms the ways {@code ArchitectureTests} forbids outside the
 * descriptors: its rule must catch each one.
 */
public final class KnowsAnAlgorithmFixture {

	private KnowsAnAlgorithmFixture() {
	}

	static boolean slidingWindow(AlgorithmDescriptor descriptor) {
		return descriptor instanceof SlidingWindowAlgorithm;
	}

	static boolean fixedWindow(RateLimitAlgorithm algorithm) {
		return algorithm == RateLimitAlgorithm.FIXED_WINDOW;
	}

	static boolean first(RateLimitAlgorithm algorithm) {
		return algorithm.ordinal() == 0;
	}

}
