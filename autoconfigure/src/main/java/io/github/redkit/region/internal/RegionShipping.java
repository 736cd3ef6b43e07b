package io.github.redkit.region.internal;

import java.time.Duration;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;

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
 * @param rounds how much one round ships, the pause after it, and the longest wait
 * @param metrics receives lag, shipped entries and errors
 */
public record RegionShipping(String region, int shard, RedisScriptRunner local, RedisKeyspace keyspace,
		RegionRounds rounds, RedkitMetrics metrics) {

	public RegionShipping {
		Assert.hasText(region, "Region must not be empty");
		Assert.isTrue(shard >= 0, "Shard must not be negative");
	}

	int batchSize() {
		return this.rounds.batchSize();
	}

	Duration interval() {
		return this.rounds.interval();
	}

	Duration timeout() {
		return this.rounds.timeout();
	}

	RegionKeys keys() {
		return new RegionKeys(this.keyspace, this.shard);
	}

}
