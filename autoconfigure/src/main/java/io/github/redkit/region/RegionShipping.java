package io.github.redkit.region;

import java.time.Duration;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedisScriptRunner;
import io.github.redkit.core.RedkitMetrics;

import org.springframework.util.Assert;

/**
 * How this region ships one shard of its state (see
 * {@code redkit.regions.outbox.shards}): what the replicators to every peer and the
 * recovery of that shard share.
 *
 * @param region this region's name (the origin of every shipped entry)
 * @param shard the shard, from 0
 * @param local runs scripts on this region's Redis
 * @param keyspace builds the keys (the same prefix in every region)
 * @param batchSize the most entries shipped, or counters recovered, in one round
 * @param interval the pause after a round that found less than a full batch
 * @param timeout the longest wait for either Redis
 * @param metrics receives lag, shipped entries and errors
 */
public record RegionShipping(String region, int shard, RedisScriptRunner local, RedisKeyspace keyspace, int batchSize,
		Duration interval, Duration timeout, RedkitMetrics metrics) {

	public RegionShipping {
		Assert.hasText(region, "Region must not be empty");
		Assert.isTrue(shard >= 0, "Shard must not be negative");
		Assert.isTrue(batchSize > 0, "Batch size must be positive");
	}

	RegionKeys keys() {
		return new RegionKeys(this.keyspace, this.shard);
	}

}
