package io.github.redkit.region.internal;

import io.github.redkit.core.RedisKeyspace;

import org.springframework.util.Assert;

/**
 * Where this region's changes go on the local Redis: the keys of regional counters, the
 * outbox and its sequence, and the outbox bound. Other capabilities that count across
 * regions (rate limits marked global) write their counters through it, so that the same
 * replicators ship them.
 */
public final class RegionOutbox {

	private final RegionShards shards;

	private final String region;

	private final long maxLength;

	/**
	 * Creates the outbox of a region.
	 * @param keyspace builds the keys
	 * @param region this region's name
	 * @param maxLength the outbox bound (approximate, {@code MAXLEN ~})
	 */
	public RegionOutbox(RedisKeyspace keyspace, String region, long maxLength) {
		this(keyspace, region, maxLength, 1);
	}

	/**
	 * Creates the outbox of a region whose state is spread over shards.
	 * @param keyspace builds the keys
	 * @param region this region's name
	 * @param maxLength the bound of each shard's outbox (approximate, {@code MAXLEN ~})
	 * @param shards how many shards (see {@code redkit.regions.outbox.shards})
	 */
	public RegionOutbox(RedisKeyspace keyspace, String region, long maxLength, int shards) {
		Assert.hasText(region, "Region must not be empty");
		Assert.isTrue(maxLength > 0, "Outbox max length must be positive");
		this.shards = new RegionShards(keyspace, shards);
		this.region = region;
		this.maxLength = maxLength;
	}

	/**
	 * This region's name.
	 * @return the name
	 */
	public String region() {
		return this.region;
	}

	/**
	 * The key of a regional counter, the same on every region's Redis.
	 * @param group the name that chooses the shard: every key of one change must be in
	 * one
	 * @param name the counter's name
	 * @return the key
	 */
	public String counter(String group, String name) {
		return this.shards.of(group).counter(name);
	}

	/**
	 * The key of the outbox sequence of a group's shard.
	 * @param group the name that chooses the shard
	 * @return the key
	 */
	public String sequence(String group) {
		return this.shards.of(group).sequence();
	}

	/**
	 * The key of the outbox stream of a group's shard.
	 * @param group the name that chooses the shard
	 * @return the key
	 */
	public String stream(String group) {
		return this.shards.of(group).outbox();
	}

	/**
	 * The outbox bound.
	 * @return the approximate largest number of entries kept
	 */
	public long maxLength() {
		return this.maxLength;
	}

}
