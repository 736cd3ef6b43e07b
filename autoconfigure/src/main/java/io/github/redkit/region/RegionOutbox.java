package io.github.redkit.region;

import io.github.redkit.core.RedisKeyspace;

import org.springframework.util.Assert;

/**
 * Where this region's changes go on the local Redis: the keys of regional counters, the
 * outbox and its sequence, and the outbox bound. Other capabilities that count across
 * regions (rate limits marked global) write their counters through it, so that the same
 * replicators ship them.
 */
public final class RegionOutbox {

	private final RegionKeys keys;

	private final String region;

	private final long maxLength;

	/**
	 * Creates the outbox of a region.
	 * @param keyspace builds the keys
	 * @param region this region's name
	 * @param maxLength the outbox bound (approximate, {@code MAXLEN ~})
	 */
	public RegionOutbox(RedisKeyspace keyspace, String region, long maxLength) {
		Assert.hasText(region, "Region must not be empty");
		Assert.isTrue(maxLength > 0, "Outbox max length must be positive");
		this.keys = new RegionKeys(keyspace);
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
	 * @param name the counter's name
	 * @return the key
	 */
	public String counter(String name) {
		return this.keys.counter(name);
	}

	/**
	 * The key of the outbox sequence.
	 * @return the key
	 */
	public String sequence() {
		return this.keys.sequence();
	}

	/**
	 * The key of the outbox stream.
	 * @return the key
	 */
	public String stream() {
		return this.keys.outbox();
	}

	/**
	 * The outbox bound.
	 * @return the approximate largest number of entries kept
	 */
	public long maxLength() {
		return this.maxLength;
	}

}
