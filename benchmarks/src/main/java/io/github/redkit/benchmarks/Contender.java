package io.github.redkit.benchmarks;

/**
 * One implementation of an operation, measured side by side with its peers.
 */
public interface Contender extends AutoCloseable {

	/**
	 * The name in the result table.
	 * @return the name
	 */
	String name();

	/**
	 * Performs one operation; called concurrently from every benchmark thread.
	 * @param thread the calling thread's index
	 * @param iteration the calling thread's iteration count
	 */
	void operate(int thread, long iteration);

	@Override
	default void close() {
	}

}
