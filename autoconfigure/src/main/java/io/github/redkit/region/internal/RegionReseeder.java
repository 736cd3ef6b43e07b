package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.internal.RedisScriptRunner;

import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

/**
 * Re-seeds a peer that missed entries: ships this region's whole slot of every local
 * counter, merged on the peer with {@code max} like any outbox entry, so it can neither
 * count twice nor undo a newer entry.
 */
final class RegionReseeder {

	private final String region;

	private final RedisScriptRunner local;

	private final RedisScriptRunner remote;

	private final RegionKeys keys;

	private final int batchSize;

	private final Duration timeout;

	RegionReseeder(String region, RedisScriptRunner local, RedisScriptRunner remote, RegionKeys keys, int batchSize,
			Duration timeout) {
		this.region = region;
		this.local = local;
		this.remote = remote;
		this.keys = keys;
		this.batchSize = batchSize;
		this.timeout = timeout;
	}

	/**
	 * Ships every local counter's slot of this region: one {@code SCAN} page, one
	 * {@code HMGET} and one {@code PTTL} per counter locally, one apply script per batch
	 * on the peer.
	 * @return the number of counters shipped
	 */
	long reseed() {
		String pattern = this.keys.counterPattern();
		List<Object> fields = List.of("p:" + this.region, "n:" + this.region);
		List<String> batchKeys = new ArrayList<>();
		List<String> args = new ArrayList<>();
		long reseeded = 0;
		try (Cursor<String> scan = this.local.template()
			.scan(ScanOptions.scanOptions().match(pattern).count(this.batchSize).build())) {
			while (scan.hasNext()) {
				String key = scan.next();
				List<Object> slot = this.local.template().opsForHash().multiGet(key, fields);
				if (slot.get(0) == null && slot.get(1) == null) {
					continue;
				}
				if (batchKeys.isEmpty()) {
					batchKeys.add(this.keys.received());
					args.add(this.region);
				}
				batchKeys.add(key);
				// sequence 0: a snapshot does not move the peer's high-water mark
				args.add("0");
				args.add((slot.get(0) != null) ? slot.get(0).toString() : "0");
				args.add((slot.get(1) != null) ? slot.get(1).toString() : "0");
				// what is left of a counter's life, 0 (none) for one that lives until
				// deleted
				Long ttl = this.local.template().getExpire(key, TimeUnit.MILLISECONDS);
				args.add((ttl != null && ttl > 0) ? ttl.toString() : "0");
				if (batchKeys.size() > this.batchSize) {
					reseeded += apply(batchKeys, args);
				}
			}
		}
		if (!batchKeys.isEmpty()) {
			reseeded += apply(batchKeys, args);
		}
		return reseeded;
	}

	private int apply(List<String> batchKeys, List<String> args) {
		this.remote.execute(RegionReplicator.APPLY, this.timeout, List.copyOf(batchKeys), args.toArray(new String[0]));
		int applied = batchKeys.size() - 1;
		batchKeys.clear();
		args.clear();
		return applied;
	}

}
