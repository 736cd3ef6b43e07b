package io.github.redkit.region;

/**
 * Counters shared by several regions: each region increments on its own Redis, in one
 * round trip, and its replicators replay its contributions on the other regions' Redis,
 * where they converge to the same total.
 * <p>
 * A region's view is its own contributions plus what the others have replicated so far:
 * it lags behind the global total by the replication lag, and equals it exactly once the
 * replicators have drained. Nothing is ever counted twice.
 */
public interface RegionalCounters {

	/**
	 * Adds to a counter in this region and queues the change for the other regions, in
	 * one atomic call on the local Redis.
	 * @param name the counter name (any text; escaped in keys), except the names that
	 * regional budgets and global rate limits keep in the same key space: names starting
	 * with {@code budget:}, {@code allotted:} or {@code allotted-to:}, and {@code rl.}
	 * followed by 43 Base64url characters and a dot
	 * @param delta the amount to add, negative to subtract
	 * @return the counter's total as this region sees it after the change
	 * @throws IllegalArgumentException for an empty or a reserved name
	 */
	long increment(String name, long delta);

	/**
	 * Reads a counter as this region sees it: the sum of every region's contribution
	 * received so far.
	 * @param name the counter name (reserved names as for {@link #increment})
	 * @return the total, {@code 0} for a counter never incremented
	 */
	long get(String name);

}
