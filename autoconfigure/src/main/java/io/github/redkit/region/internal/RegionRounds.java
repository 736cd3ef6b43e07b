package io.github.redkit.region.internal;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * How the rounds that ship or recover one shard of this region's state go: how much one
 * round takes, how long to pause after a round that found less, and how long to wait for
 * a Redis.
 *
 * @param batchSize the most entries shipped, or counters recovered, in one round
 * @param interval the pause after a round that found less than a full batch
 * @param timeout the longest wait for either Redis
 */
public record RegionRounds(int batchSize, Duration interval, Duration timeout) {

	public RegionRounds {
		Assert.isTrue(batchSize > 0, "Batch size must be positive");
	}

}
