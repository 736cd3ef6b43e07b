package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.core.internal.RedisScriptRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.Limit;
import org.springframework.data.redis.connection.stream.MapRecord;

/**
 * Gives a region whose Redis lost its data (restarted without persistence, replaced) or
 * went back in time (restored from an older snapshot, failed over to a replica that was
 * behind) its counters back from every peer ({@code region_recover}): its own slot, the
 * largest value the peers hold, plus what the region counted since; the other regions'
 * slots merged like a replicated entry. Every peer is then re-seeded with the sums.
 * Nothing ships from the region until it is done, so the peers are read before any change
 * made since reaches them. It completes only once every peer was read: until then it
 * fails, and the replicators retry it.
 */
public final class RegionRecovery {

	private static final Log logger = LogFactory.getLog(RegionRecovery.class);

	private static final LuaScript<Long> RECOVER = LuaScript.load("region_recover", Long.class);

	private static final LuaScript<List> READ = LuaScript.load("region_recover_read", List.class);

	private static final LuaScript<List> SLOTS = LuaScript.load("region_recover_slots", List.class);

	private final String region;

	private final RedisScriptRunner local;

	private final Map<String, RedisScriptRunner> peers;

	private final RegionKeys keys;

	private final int batchSize;

	private final Duration timeout;

	private final RedkitMetrics metrics;

	private Runnable beforeBatch = () -> {
	};

	private volatile boolean recovering;

	private volatile long peersRead;

	private volatile long countersRead;

	/**
	 * The recovery of one region's shard, from all its peers.
	 * @param shipping the shard and how it is shipped
	 * @param peers runs scripts on each peer's Redis, by peer region name
	 */
	RegionRecovery(RegionShipping shipping, Map<String, RedisScriptRunner> peers) {
		this.region = shipping.region();
		this.local = shipping.local();
		this.keys = shipping.keys();
		this.batchSize = shipping.batchSize();
		this.timeout = shipping.timeout();
		this.metrics = shipping.metrics();
		this.peers = new LinkedHashMap<>(peers);
	}

	/**
	 * A recovery of the shard of some replicators from all their peers, apart from the
	 * one they share.
	 * @param replicators the replicators of one region and shard
	 * @return a recovery of their shard
	 */
	public static RegionRecovery over(List<RegionReplicator> replicators) {
		Map<String, RedisScriptRunner> peers = new LinkedHashMap<>();
		replicators.forEach((replicator) -> peers.put(replicator.peer(), replicator.peerRunner()));
		return new RegionRecovery(replicators.get(0).shipping(), peers);
	}

	/**
	 * Whether this region's Redis is known to need a recovery that has not finished.
	 * @return {@code true} from a failed or running recovery until one finishes
	 */
	boolean isRecovering() {
		return this.recovering;
	}

	/**
	 * How far the last recovery got.
	 * @return the peers read completely, how many peers, the counters read from them
	 */
	Map<String, Object> progress() {
		Map<String, Object> progress = new LinkedHashMap<>();
		progress.put("peersRead", this.peersRead);
		progress.put("peers", (long) this.peers.size());
		progress.put("countersRead", this.countersRead);
		return progress;
	}

	/** This region's Redis holds its incarnation: another instance recovered it. */
	void notNeeded() {
		this.recovering = false;
	}

	public void setBeforeBatch(Runnable beforeBatch) {
		this.beforeBatch = beforeBatch;
	}

	/**
	 * Recovers this region's slots, unless another instance (or another replicator of
	 * this shard) did it first.
	 * @throws IllegalStateException when a peer could not be read: nothing is recovered
	 * and the caller retries
	 */
	public synchronized void recover() {
		if (Boolean.TRUE.equals(this.local.template().hasKey(this.keys.incarnation(this.region)))) {
			this.recovering = false;
			return;
		}
		this.recovering = true;
		this.peersRead = 0;
		this.countersRead = 0;
		PeerState peers = new PeerState();
		Map<String, RuntimeException> unreadable = new LinkedHashMap<>();
		this.peers.forEach((peer, runner) -> {
			try {
				read(peer, runner, peers);
				this.peersRead++;
			}
			catch (RuntimeException ex) {
				unreadable.put(peer, ex);
			}
		});
		if (!unreadable.isEmpty()) {
			IllegalStateException failure = new IllegalStateException("Regions " + unreadable.keySet()
					+ " could not be read: this region takes its slots back once every peer was read");
			unreadable.values().forEach(failure::addSuppressed);
			throw failure;
		}
		Map<String, long[]> before = slotsBefore(peers);
		long recovered = apply(peers, before);
		if (recovered < 0) {
			this.recovering = false;
			return;
		}
		this.recovering = false;
		if (recovered > 0) {
			this.metrics.increment(RegionMeters.RECOVERIES);
			logger.warn("This region's Redis had lost its data or gone back in time: took back this region's slot of "
					+ recovered + " counters from the peers and re-seeds them with the sums");
		}
	}

	/** Reads every counter of a peer, a page per round trip. */
	private void read(String peer, RedisScriptRunner runner, PeerState state) {
		Set<String> peerSlot = Set.of("p:" + peer, "n:" + peer);
		String cursor = "0";
		do {
			List<?> page = runner.execute(READ, this.timeout,
					List.of(this.keys.incarnation(peer), this.keys.received()), cursor,
					Integer.toString(this.batchSize), this.keys.counterPattern(), this.region);
			cursor = page.get(0).toString();
			// the peer's own slot only when the peer holds it: else it may be recovering
			// too, and what it counted since its own loss would come back to it from here
			// as old counts
			boolean ownSlotKnown = RegionReplicator.number(page.get(1)) == 1;
			state.received(page.get(2).toString());
			int at = 3;
			while (at < page.size()) {
				String key = page.get(at).toString();
				long ttl = RegionReplicator.number(page.get(at + 1));
				int count = (int) RegionReplicator.number(page.get(at + 2));
				Map<String, Long> seen = state.largest.computeIfAbsent(key, (k) -> new LinkedHashMap<>());
				for (int f = at + 3; f < at + 3 + count * 2; f += 2) {
					String field = page.get(f).toString();
					if (ownSlotKnown || !peerSlot.contains(field)) {
						seen.merge(field, Long.parseLong(page.get(f + 1).toString()), Math::max);
					}
				}
				if (ttl > 0) {
					state.ttls.merge(key, ttl, Math::max);
				}
				at += 3 + count * 2;
				this.countersRead++;
			}
		}
		while (!"0".equals(cursor));
	}

	/**
	 * What this Redis held of this region's slot when it came back, for each counter the
	 * peers hold: the slot as read now, except for counters changed since, whose last
	 * outbox entry before the peers' high-water mark tells (none: 0, on an outbox never
	 * trimmed), or what an earlier recovery left, when that came later and the outbox
	 * still holds every entry written after it: a recovery changes the slot without an
	 * outbox entry, and a re-seed moves no peer's mark.
	 */
	private Map<String, long[]> slotsBefore(PeerState peers) {
		Map<String, long[]> before = new HashMap<>();
		Map<String, RecoveredSlot> recoveredSlots = new HashMap<>();
		List<String> page = new ArrayList<>();
		for (String key : peers.largest.keySet()) {
			page.add(key);
			if (page.size() == this.batchSize) {
				readSlots(page, before, recoveredSlots);
			}
		}
		readSlots(page, before, recoveredSlots);
		// read after the slots: a change made after them is in the outbox too
		Set<String> changed = changedSince(peers.boundary, peers.largest.keySet(), recoveredSlots);
		Map<String, OutboxSlot> last = lastEntriesUntil(peers.boundary, changed);
		for (String key : changed) {
			RecoveredSlot recovered = recoveredSlots.get(key);
			OutboxSlot outbox = last.get(key);
			// the recovered slot is what this Redis held only if the outbox shows every
			// change made after it: an entry of the counter trimmed after it was not seen
			if (recovered != null && ((outbox == null) ? !trimmedAfter(recovered.id())
					: !PeerState.later(outbox.id(), recovered.id()))) {
				before.put(key, recovered.slot());
				continue;
			}
			long[] entry = (outbox != null) ? outbox.slot() : null;
			if (entry == null && !outboxStartsAtOne()) {
				Map<String, Long> largest = peers.largest.getOrDefault(key, Map.of());
				entry = new long[] { largest.getOrDefault("p:" + this.region, 0L),
						largest.getOrDefault("n:" + this.region, 0L) };
				logger.warn("The outbox no longer holds what this Redis had of '" + key
						+ "' before it went back in time: taken as what the peers hold");
			}
			before.put(key, (entry != null) ? entry : new long[2]);
		}
		return before;
	}

	private void readSlots(List<String> page, Map<String, long[]> before, Map<String, RecoveredSlot> recovered) {
		if (page.isEmpty()) {
			return;
		}
		List<?> slots = this.local.execute(SLOTS, this.timeout, withRecoveredSlots(page), this.region);
		for (int i = 0; i < page.size(); i++) {
			before.put(page.get(i), new long[] { RegionReplicator.number(slots.get(i * 3)),
					RegionReplicator.number(slots.get(i * 3 + 1)) });
			RecoveredSlot slot = RecoveredSlot.parse(slots.get(i * 3 + 2).toString());
			if (slot != null) {
				recovered.put(page.get(i), slot);
			}
		}
		page.clear();
	}

	/** The counters, then each one's recovered-slot key in the same order. */
	private List<String> withRecoveredSlots(List<String> counters) {
		List<String> keys = new ArrayList<>(counters.size() * 2);
		keys.addAll(counters);
		counters.forEach((counter) -> keys.add(this.keys.recoveredSlot(counter)));
		return keys;
	}

	/**
	 * The counters among {@code candidates} that this region changed after an outbox id
	 * and after the last recovery that gave back part of their slot.
	 */
	private Set<String> changedSince(String boundary, Set<String> candidates, Map<String, RecoveredSlot> recovered) {
		Set<String> changed = new HashSet<>();
		String from = boundary;
		while (true) {
			List<MapRecord<String, Object, Object>> records = this.local.template()
				.opsForStream()
				.range(this.keys.outbox(), Range.rightUnbounded(Range.Bound.exclusive(from)),
						Limit.limit().count(this.batchSize));
			if (records == null || records.isEmpty()) {
				return changed;
			}
			for (MapRecord<String, Object, Object> record : records) {
				String key = this.keys.counter(String.valueOf(record.getValue().get("counter")));
				RecoveredSlot slot = recovered.get(key);
				if (candidates.contains(key)
						&& (slot == null || PeerState.later(record.getId().getValue(), slot.id()))) {
					changed.add(key);
				}
				from = record.getId().getValue();
			}
		}
	}

	/** The slot of each counter in its last outbox entry up to an id, walking back. */
	private Map<String, OutboxSlot> lastEntriesUntil(String boundary, Set<String> counters) {
		Map<String, OutboxSlot> last = new HashMap<>();
		Range.Bound<String> to = Range.Bound.inclusive(boundary);
		while (last.size() < counters.size()) {
			List<MapRecord<String, Object, Object>> records = this.local.template()
				.opsForStream()
				.reverseRange(this.keys.outbox(), Range.of(Range.Bound.unbounded(), to),
						Limit.limit().count(this.batchSize));
			if (records == null || records.isEmpty()) {
				break;
			}
			for (MapRecord<String, Object, Object> record : records) {
				String key = this.keys.counter(String.valueOf(record.getValue().get("counter")));
				if (counters.contains(key)) {
					last.putIfAbsent(key,
							new OutboxSlot(record.getId().getValue(),
									new long[] { Long.parseLong(String.valueOf(record.getValue().get("p"))),
											Long.parseLong(String.valueOf(record.getValue().get("n"))) }));
				}
				to = Range.Bound.exclusive(record.getId().getValue());
			}
		}
		return last;
	}

	/**
	 * Whether entries later than an outbox id may have been trimmed from the outbox:
	 * entries go from the oldest, so none were when the oldest entry left is at or before
	 * that id, or is the outbox's first ever.
	 */
	private boolean trimmedAfter(String id) {
		List<MapRecord<String, Object, Object>> first = this.local.template()
			.opsForStream()
			.range(this.keys.outbox(), Range.unbounded(), Limit.limit().count(1));
		if (first == null || first.isEmpty()) {
			return false;
		}
		MapRecord<String, Object, Object> oldest = first.get(0);
		return PeerState.later(oldest.getId().getValue(), id)
				&& !"1".equals(String.valueOf(oldest.getValue().get("seq")));
	}

	private boolean outboxStartsAtOne() {
		List<MapRecord<String, Object, Object>> first = this.local.template()
			.opsForStream()
			.range(this.keys.outbox(), Range.unbounded(), Limit.limit().count(1));
		return first == null || first.isEmpty() || "1".equals(String.valueOf(first.get(0).getValue().get("seq")));
	}

	private long apply(PeerState peers, Map<String, long[]> before) {
		List<String> batchKeys = new ArrayList<>();
		List<String> args = new ArrayList<>();
		String pField = "p:" + this.region;
		String nField = "n:" + this.region;
		boolean ownSlotFound = false;
		long recovered = 0;
		for (Map.Entry<String, Map<String, Long>> counter : peers.largest.entrySet()) {
			String key = counter.getKey();
			long[] slot = before.getOrDefault(key, new long[2]);
			batchKeys.add(key);
			Map<String, Long> fields = counter.getValue();
			args.add(Long.toString(peers.ttls.getOrDefault(key, 0L)));
			args.add(Integer.toString(fields.size()));
			for (Map.Entry<String, Long> field : fields.entrySet()) {
				args.add(field.getKey());
				long value = field.getValue();
				if (field.getKey().equals(pField)) {
					value = Math.max(0, value - slot[0]);
					ownSlotFound = true;
				}
				else if (field.getKey().equals(nField)) {
					value = Math.max(0, value - slot[1]);
					ownSlotFound = true;
				}
				args.add(Long.toString(value));
			}
			if (batchKeys.size() == this.batchSize) {
				long done = batch(batchKeys, args, false, false, 0);
				if (done < 0) {
					return done;
				}
				recovered += done;
			}
		}
		boolean reseed = ownSlotFound || peers.highestSequence > 0;
		long last = batch(batchKeys, args, true, reseed, peers.highestSequence);
		return (last < 0) ? last : recovered + last;
	}

	private long batch(List<String> batchKeys, List<String> args, boolean last, boolean reseed, long sequence) {
		this.beforeBatch.run();
		List<String> scriptKeys = new ArrayList<>(batchKeys.size() + 4 + this.peers.size() * 2);
		scriptKeys.add(this.keys.incarnation(this.region));
		scriptKeys.add(this.keys.recovered());
		scriptKeys.add(this.keys.sequence());
		scriptKeys.add(this.keys.outbox());
		this.peers.keySet().forEach((peer) -> {
			scriptKeys.add(this.keys.shipped(peer));
			scriptKeys.add(this.keys.reseed(peer));
		});
		scriptKeys.addAll(withRecoveredSlots(batchKeys));
		List<String> scriptArgs = new ArrayList<>(args.size() + 6);
		scriptArgs.add(this.region);
		scriptArgs.add(last ? "1" : "0");
		scriptArgs.add(Integer.toString(this.peers.size()));
		scriptArgs.add(Long.toString(sequence));
		scriptArgs.add(reseed ? "1" : "0");
		scriptArgs.add(RandomIds.next());
		scriptArgs.addAll(args);
		batchKeys.clear();
		args.clear();
		return this.local.execute(RECOVER, this.timeout, scriptKeys, scriptArgs.toArray(new String[0]));
	}

	/** A counter's slot in an outbox entry, and the entry's id. */
	private record OutboxSlot(String id, long[] slot) {

	}

	/**
	 * What an earlier recovery left of a counter's slot, and the outbox's last id then:
	 * the slot at that point of the outbox.
	 */
	private record RecoveredSlot(String id, long[] slot) {

		static @Nullable RecoveredSlot parse(String value) {
			String[] parts = value.split("\\|");
			if (parts.length != 3) {
				return null;
			}
			return new RecoveredSlot(parts[2], new long[] { Long.parseLong(parts[0]), Long.parseLong(parts[1]) });
		}

	}

	/**
	 * What the peers hold: the largest value of every slot, the longest TTL, and the
	 * highest position any of them received from this region.
	 */
	private static final class PeerState {

		private final Map<String, Map<String, Long>> largest = new LinkedHashMap<>();

		private final Map<String, Long> ttls = new HashMap<>();

		private long highestSequence;

		// the latest outbox id any peer received from this region: entries after it in
		// the
		// local outbox were written since this Redis came back
		private String boundary = "0-0";

		void received(String mark) {
			if (mark.isEmpty()) {
				return;
			}
			int bar = mark.indexOf('|');
			long sequence = Long.parseLong((bar < 0) ? mark : mark.substring(0, bar));
			this.highestSequence = Math.max(this.highestSequence, sequence);
			if (bar >= 0 && later(mark.substring(bar + 1), this.boundary)) {
				this.boundary = mark.substring(bar + 1);
			}
		}

		static boolean later(String id, String other) {
			int dash = id.indexOf('-');
			int otherDash = other.indexOf('-');
			long ms = Long.parseLong(id.substring(0, dash));
			long otherMs = Long.parseLong(other.substring(0, otherDash));
			return ms > otherMs || (ms == otherMs
					&& Long.parseLong(id.substring(dash + 1)) > Long.parseLong(other.substring(otherDash + 1)));
		}

	}

}
