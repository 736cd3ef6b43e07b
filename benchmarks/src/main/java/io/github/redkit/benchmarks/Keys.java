package io.github.redkit.benchmarks;

/**
 * Spreads operations over a fixed set of keys, the same sequence for every contender.
 */
final class Keys {

	static final int COUNT = 1000;

	private Keys() {
	}

	static int index(int thread, long iteration) {
		return (int) ((thread * 7919L + iteration) % COUNT);
	}

	static String of(int thread, long iteration) {
		return "bench:" + index(thread, iteration);
	}

}
