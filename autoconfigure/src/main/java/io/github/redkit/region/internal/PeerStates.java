package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where replication to each peer stands, over the peer's shards, as the health details
 * and the endpoint's {@code regions} section show it.
 */
final class PeerStates {

	// a peer whose shards differ is reported in the state of its worst shard
	private static final List<String> STATES_BY_SEVERITY = List.of("in-step", "standby", "starting", "lagging",
			"failing", "recovering");

	private PeerStates() {
	}

	static Map<String, Object> of(List<RegionReplicator> replicators) {
		Map<String, List<RegionReplicator>> byPeer = new LinkedHashMap<>();
		for (RegionReplicator replicator : replicators) {
			byPeer.computeIfAbsent(replicator.peer(), (name) -> new ArrayList<>()).add(replicator);
		}
		Map<String, Object> peers = new LinkedHashMap<>();
		byPeer.forEach((name, shards) -> peers.put(name, peer(shards)));
		return peers;
	}

	/** A peer's state over the shards: the worst state, the sum of the lags' entries. */
	private static Map<String, Object> peer(List<RegionReplicator> shards) {
		RegionReplicator worst = shards.stream().max(Comparator.comparingInt(PeerStates::severity)).get();
		Map<String, Object> peer = new LinkedHashMap<>();
		peer.put("state", worst.state());
		peer.put("lagEntries", shards.stream().mapToLong(RegionReplicator::lagEntries).sum());
		peer.put("lagSeconds", shards.stream().mapToLong((shard) -> shard.lag().toMillis()).max().orElse(0) / 1000.0);
		peer.put("reseedRequired", shards.stream().anyMatch(RegionReplicator::isReseedRequired));
		if ("recovering".equals(worst.state())) {
			peer.put("recovery", worst.recoveryProgress());
		}
		// the most recent failure of any shard
		Throwable lastError = null;
		Duration since = null;
		for (RegionReplicator shard : shards) {
			Throwable error = shard.lastError();
			Duration age = shard.sinceLastError();
			if (error != null && age != null && (since == null || age.compareTo(since) < 0)) {
				lastError = error;
				since = age;
			}
		}
		if (lastError != null && since != null) {
			peer.put("lastError", lastError.getClass().getSimpleName() + ": " + lastError.getMessage());
			peer.put("lastErrorAgeSeconds", since.toSeconds());
		}
		return peer;
	}

	private static int severity(RegionReplicator shard) {
		return STATES_BY_SEVERITY.indexOf(shard.state());
	}

}
