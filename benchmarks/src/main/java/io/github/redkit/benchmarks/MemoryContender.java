package io.github.redkit.benchmarks;

/**
 * One rate limiter whose Redis state per identifier is measured by
 * {@link RateLimitMemorySuite}.
 */
interface MemoryContender extends AutoCloseable {

	/**
	 * The name in the result table.
	 * @return the name
	 */
	String name();

	/**
	 * The windows it counts, for the result table, e.g. {@code 10/1m}.
	 * @return the windows
	 */
	String windows();

	/**
	 * Takes one permit for an identifier, {@code calls} times in a row; called
	 * concurrently for different identifiers.
	 * @param identifier the identifier
	 * @param calls the permits to take, one call each
	 * @return how many of the calls were allowed
	 */
	int acquire(String identifier, int calls);

	@Override
	default void close() {
	}

}
