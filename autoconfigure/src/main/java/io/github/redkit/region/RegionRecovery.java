package io.github.redkit.region;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.LuaScript;
import io.github.redkit.core.RedisScriptRunner;
import io.github.redkit.core.RedkitMetrics;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

/**
 * Gives a region whose Redis lost its data (restarted without persistence, or replaced)
 * its counters back from the reachable peers ({@code region_recover}): its own slot, the
 * largest value the peers hold, added to what the region counted since; the other
 * regions' slots merged like a replicated entry. Every peer is then re-seeded with the
 * sums. Nothing ships from the region until it is done, so the peers are read before any
 * change made after the loss reaches them.
 */
final class RegionRecovery {

	private static final Log logger = LogFactory.getLog(RegionRecovery.class);

	/**
	 * Where {@link #read} keeps a counter's TTL among its slots: no slot has this name.
	 */
	private static final String TTL = "ttl";

	private static final LuaScript<Long> RECOVER = LuaScript.load("region_recover", Long.class);

	private final String region;

	private final RedisScriptRunner local;

	private final Map<String, RedisScriptRunner> peers;

	private final RegionKeys keys;

	private final int batchSize;

	private final Duration timeout;

	private final RedkitMetrics metrics;

	private final List<RegionReplicator> replicators;

	private RegionRecovery(RegionReplicator first, List<RegionReplicator> replicators) {
		this.region = first.region();
		this.local = first.localRunner();
		this.keys = first.keys();
		this.batchSize = first.batchSize();
		this.timeout = first.timeout();
		this.metrics = first.metrics();
		this.replicators = List.copyOf(replicators);
		this.peers = new LinkedHashMap<>();
		replicators.forEach((replicator) -> this.peers.put(replicator.peer(), replicator.peerRunner()));
	}

	/**
	 * The recovery of one region's replicators, from all their peers.
	 * @param replicators the replicators of one region, one per peer
	 * @return the recovery they share
	 */
	static RegionRecovery over(List<RegionReplicator> replicators) {
		return new RegionRecovery(replicators.get(0), replicators);
	}

	/**
	 * Recovers this region's slots, unless another instance did it first; then every
	 * replicator re-seeds its peer.
	 */
	synchronized void recover() {
		Map<String, Map<String, Long>> largest = new LinkedHashMap<>();
		List<String> unreachable = new ArrayList<>();
		this.peers.forEach((peer, runner) -> {
			try {
				read(peer, runner, largest);
			}
			catch (RuntimeException ex) {
				unreachable.add(peer);
				logger.debug("Could not read region '" + peer + "' to recover this region's slots", ex);
			}
		});
		long recovered = 0;
		List<String> batchKeys = new ArrayList<>();
		List<String> args = new ArrayList<>();
		for (Map.Entry<String, Map<String, Long>> counter : largest.entrySet()) {
			batchKeys.add(counter.getKey());
			Map<String, Long> fields = new LinkedHashMap<>(counter.getValue());
			Long ttl = fields.remove(TTL);
			args.add((ttl != null) ? ttl.toString() : "0");
			args.add(Integer.toString(fields.size()));
			fields.forEach((field, value) -> {
				args.add(field);
				args.add(value.toString());
			});
			if (batchKeys.size() == this.batchSize) {
				recovered += Math.max(0, apply(batchKeys, args, false));
			}
		}
		long last = apply(batchKeys, args, true);
		if (last < 0) {
			// another instance of this region recovered first
			return;
		}
		recovered += last;
		if (!unreachable.isEmpty()) {
			logger.warn("Regions " + unreachable + " could not be read while this region took its slots back:"
					+ " a larger slot they hold hides this region's later changes there until these pass it");
		}
		if (recovered == 0) {
			// a new region (it may have taken the others' slots, but none of its
			// own): its outbox holds everything it counted
			return;
		}
		this.metrics.increment(RegionMeters.RECOVERIES);
		// the peers hold the old slots; the sums go to all of them
		this.replicators.forEach(RegionReplicator::requireReseed);
		logger.warn("This region's Redis had lost its data: took back this region's slot of " + recovered
				+ " counters from the peers and re-seeds them with the sums");
	}

	/**
	 * Keeps the largest value of every slot of every counter a peer holds; the peer's own
	 * slot only when the peer holds its incarnation: else it may be recovering too, and
	 * what it counted since its own loss would come back to it from here as old counts.
	 */
	private void read(String peer, RedisScriptRunner runner, Map<String, Map<String, Long>> largest) {
		boolean ownSlotKnown = Boolean.TRUE.equals(runner.template().hasKey(this.keys.incarnation(peer)));
		Set<String> peerSlot = Set.of("p:" + peer, "n:" + peer);
		try (Cursor<String> scan = runner.template()
			.scan(ScanOptions.scanOptions().match(this.keys.counterPattern()).count(this.batchSize).build())) {
			while (scan.hasNext()) {
				String key = scan.next();
				Map<Object, Object> slots = runner.template().opsForHash().entries(key);
				if (slots.isEmpty()) {
					continue;
				}
				Map<String, Long> seen = largest.computeIfAbsent(key, (k) -> new LinkedHashMap<>());
				slots.forEach((field, value) -> {
					if (ownSlotKnown || !peerSlot.contains(field.toString())) {
						seen.merge(field.toString(), Long.parseLong(value.toString()), Math::max);
					}
				});
				Long ttl = runner.template().getExpire(key, TimeUnit.MILLISECONDS);
				if (ttl != null && ttl > 0) {
					seen.merge(TTL, ttl, Math::max);
				}
			}
		}
	}

	private long apply(List<String> batchKeys, List<String> args, boolean last) {
		List<String> scriptKeys = new ArrayList<>(batchKeys.size() + 2);
		scriptKeys.add(this.keys.incarnation(this.region));
		scriptKeys.add(this.keys.recovered());
		scriptKeys.addAll(batchKeys);
		List<String> scriptArgs = new ArrayList<>(args.size() + 2);
		scriptArgs.add(this.region);
		scriptArgs.add(last ? "1" : "0");
		scriptArgs.addAll(args);
		batchKeys.clear();
		args.clear();
		return this.local.execute(RECOVER, this.timeout, scriptKeys, scriptArgs.toArray(new String[0]));
	}

}
