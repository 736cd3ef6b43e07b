package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

/**
 * Re-seeds a peer that missed entries: ships this region's whole slot of every local
 * counter, merged on the peer with {@code max} like any outbox entry, so it can neither
 * count twice nor undo a newer entry. Each page of slots is read with the outbox's
 * position at that moment and moves the peer's high-water mark of this region there: a
 * recovery after a step back takes what the peers hold as counted up to that mark, so a
 * peer holding more than its mark says would get those calls counted twice.
 */
final class RegionReseeder {

	private static final Log logger = LogFactory.getLog(RegionReseeder.class);

	private static final LuaScript<List> READ = LuaScript.load("region_reseed_read", List.class);

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
	 * Ships every local counter's slot of this region: one {@code SCAN} page and one
	 * script reading the page's slots, TTLs and the outbox's position locally, one apply
	 * script per page on the peer.
	 * @return the number of counters shipped
	 */
	long reseed() {
		List<String> page = new ArrayList<>();
		long reseeded = 0;
		try (Cursor<String> scan = this.local.template()
			.scan(ScanOptions.scanOptions().match(this.keys.counterPattern()).count(this.batchSize).build())) {
			while (scan.hasNext()) {
				page.add(scan.next());
				if (page.size() == this.batchSize) {
					reseeded += reseed(page);
				}
			}
		}
		return reseeded + reseed(page);
	}

	private int reseed(List<String> page) {
		if (page.isEmpty()) {
			return 0;
		}
		List<String> readKeys = new ArrayList<>(page.size() + 2);
		readKeys.add(this.keys.sequence());
		readKeys.add(this.keys.outbox());
		readKeys.addAll(page);
		List<?> slots = this.local.execute(READ, this.timeout, readKeys, this.region);
		String position = slots.get(0).toString();
		List<String> applyKeys = new ArrayList<>(page.size() + 1);
		List<String> args = new ArrayList<>(page.size() * 4 + 1);
		applyKeys.add(this.keys.received());
		args.add(this.region);
		for (int i = 0; i < page.size(); i++) {
			String p = slots.get(1 + i * 3).toString();
			String n = slots.get(2 + i * 3).toString();
			if (p.isEmpty() && n.isEmpty()) {
				continue;
			}
			applyKeys.add(page.get(i));
			args.add(position);
			args.add(p.isEmpty() ? "0" : p);
			args.add(n.isEmpty() ? "0" : n);
			// what is left of a counter's life, 0 (none) for one that lives until deleted
			long ttl = RegionReplicator.number(slots.get(3 + i * 3));
			args.add((ttl > 0) ? Long.toString(ttl) : "0");
		}
		page.clear();
		if (applyKeys.size() == 1) {
			return 0;
		}
		List<?> applied = this.remote.execute(RegionReplicator.APPLY, this.timeout, applyKeys,
				args.toArray(new String[0]));
		if (RegionReplicator.number(applied.get(0)) < 0) {
			// the peer received that sequence under an earlier id (a step back not yet
			// noticed, or a recovery by an instance of the previous version, which left
			// the sequence at the peers' highest): the slots go without a mark, as
			// before, and the next shipped entry tells a step back
			logger.warn("The peer's mark of this region (" + applied.get(2) + "|" + applied.get(3)
					+ ") is beyond this outbox's position " + position + ": re-seeding without moving it");
			for (int at = 1; at < args.size(); at += 4) {
				args.set(at, "0");
			}
			this.remote.execute(RegionReplicator.APPLY, this.timeout, applyKeys, args.toArray(new String[0]));
		}
		return applyKeys.size() - 1;
	}

}
