package io.github.redkit.region.internal;

import io.github.redkit.core.RedisKeyspace;

/**
 * The keys of one shard of regional counters, the same on every region's Redis:
 * {@code <prefix>:region:{counters}:...} for the first shard,
 * {@code <prefix>:region:{counters-<shard>}:...} for the others. The keys of a shard
 * share one hash tag so that an increment (counter, sequence, outbox) and an applied
 * batch (counters, high-water marks) are each one script on a cluster too; each shard has
 * its own outbox, so the shards spread over a cluster's slots.
 */
public final class RegionKeys {

	private final RedisKeyspace.Key base;

	private final int shard;

	RegionKeys(RedisKeyspace keyspace) {
		this(keyspace, 0);
	}

	RegionKeys(RedisKeyspace keyspace, int shard) {
		this.base = keyspace.key("region").tag((shard == 0) ? "counters" : "counters-" + shard);
		this.shard = shard;
	}

	/** This shard's number, from 0. */
	int shard() {
		return this.shard;
	}

	/** The hash of one counter: {@code p:<region>} and {@code n:<region>} per region. */
	public String counter(String name) {
		return this.base.part("counter", name).build();
	}

	/**
	 * An operation on a counter in this region (not replicated): remembers its answer so
	 * that a retry is answered as the first attempt was.
	 */
	String operation(String counter, String operationId) {
		return this.base.part("op", counter, operationId).build();
	}

	/**
	 * A borrow made by this region (not replicated): whom it asked, in which order, and
	 * what each gave, so that a retry asks nobody twice.
	 */
	String borrowing(String budget, String operationId) {
		return this.base.part("borrowing", budget, operationId).build();
	}

	/**
	 * This region's open reservations of a budget (not replicated: the amounts are spent
	 * in the replicated counters until they come back).
	 */
	String reservations(String budget) {
		return this.base.part("reservations", budget).build();
	}

	/** When each of this region's open reservations of a budget expires. */
	String reservationDeadlines(String budget) {
		return this.base.part("reservation-deadlines", budget).build();
	}

	/** The sequence of this region's outbox entries. */
	public String sequence() {
		return this.base.part("outbox-seq").build();
	}

	/** This region's outbox, a stream. */
	public String outbox() {
		return this.base.part("outbox").build();
	}

	/** The outbox position shipped to one peer: {@code <stream id>|<sequence>}. */
	public String shipped(String peer) {
		return this.base.part("shipped", peer).build();
	}

	/** The lease of the instance of this region that ships to one peer. */
	String shipper(String peer) {
		return this.base.part("shipper", peer).build();
	}

	/**
	 * Set when this Redis holds a region's own slot of its counters (see
	 * {@code region_recover}); gone when the Redis lost its data.
	 */
	String incarnation(String region) {
		return this.base.part("incarnation", region).build();
	}

	/**
	 * Set while a peer must be re-seeded with this region's slots (a gap, a peer that
	 * restarted empty, a recovery here); deleted by the re-seed that finished.
	 */
	String reseed(String peer) {
		return this.base.part("reseed", peer).build();
	}

	/** The counters recovered so far while the incarnation is missing. */
	String recovered() {
		return this.base.part("recovered").build();
	}

	/**
	 * What the last recovery gave back of this region's own slot of a counter, as the
	 * text {@code p|n|id}: the p and n it left and the id of the outbox's last entry then
	 * (see {@code region_recover}). Outside the counters' {@code SCAN} pattern, so that
	 * no peer's recovery reads it as a slot; it lives as long as its counter.
	 * @param counterKey the counter's key, from {@link #counter(String)}
	 * @return the key, in the counter's hash tag
	 */
	String recoveredSlot(String counterKey) {
		String counters = counter("x");
		String recovered = this.base.part("recovered-slot", "x").build();
		return recovered.substring(0, recovered.length() - 1) + counterKey.substring(counters.length() - 1);
	}

	/** A {@code SCAN} pattern of every counter's key. */
	String counterPattern() {
		String key = counter("x");
		StringBuilder pattern = new StringBuilder(key.length() + 8);
		for (char c : key.substring(0, key.length() - 1).toCharArray()) {
			if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
				pattern.append('\\');
			}
			pattern.append(c);
		}
		return pattern.append('*').toString();
	}

	/** On a receiving Redis: the highest sequence received from each origin region. */
	public String received() {
		return this.base.part("received").build();
	}

}
