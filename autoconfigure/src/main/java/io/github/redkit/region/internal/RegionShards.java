package io.github.redkit.region.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

import io.github.redkit.core.RedisKeyspace;

import org.springframework.util.Assert;

/**
 * The shards of this deployment's regional state ({@code redkit.regions.outbox.shards}):
 * each a hash tag with its own outbox, so that on a Redis Cluster the regional state
 * spreads over several slots. Everything one change touches is in one shard, chosen from
 * a name that every region computes alike: a counter's name, a budget's name (all its
 * counters, operations and reservations), a global rate limit's name.
 */
final class RegionShards {

	private final List<RegionKeys> shards = new ArrayList<>();

	RegionShards(RedisKeyspace keyspace, int count) {
		Assert.isTrue(count > 0, "Shards must be positive");
		for (int shard = 0; shard < count; shard++) {
			this.shards.add(new RegionKeys(keyspace, shard));
		}
	}

	/** The keys of the shard a name belongs to. */
	RegionKeys of(String name) {
		if (this.shards.size() == 1) {
			return this.shards.get(0);
		}
		CRC32 crc = new CRC32();
		crc.update(name.getBytes(StandardCharsets.UTF_8));
		return this.shards.get((int) (crc.getValue() % this.shards.size()));
	}

}
