package io.github.redkit.core;

/**
 * Something a capability needs from the Redis server for its guarantees to hold, which
 * the server's settings may take away: the server doctor checks each need a capability
 * declares through {@link ServerNeeds}.
 */
public enum ServerNeed {

	/**
	 * Keys stay until they expire or are deleted: any {@code maxmemory-policy} but
	 * {@code noeviction} may evict them under memory pressure ({@code volatile-*} ones
	 * included, since Redkit's keys have expiries).
	 */
	NO_EVICTION,

	/**
	 * What was acknowledged survives a restart of the server: an append-only file; a
	 * snapshot loses the writes since it was taken.
	 */
	PERSISTENCE,

	/**
	 * What was acknowledged survives a failover to a replica; Redis replicates
	 * asynchronously, so the doctor says what a failover may lose rather than promising
	 * it.
	 */
	REPLICATED_WRITES

}
