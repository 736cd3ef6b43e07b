package io.github.redkit.benchmarks;

import org.jspecify.annotations.Nullable;

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

	/**
	 * How many units of work (messages, say) one operation moves: throughput, commands,
	 * round trips and Redis CPU are reported per unit; latency stays per operation.
	 * @return the units per operation, 1 by default
	 */
	default int unitsPerOperation() {
		return 1;
	}

	/**
	 * The keys of the records this contender leaves in Redis per operation (a pattern of
	 * {@code SCAN MATCH}), whose memory the runner reports per record: what an operation
	 * id kept for replays costs.
	 * @return the pattern, {@code null} (the default) when the contender keeps none
	 */
	default @Nullable String keptRecords() {
		return null;
	}

	@Override
	default void close() {
	}

}
