package io.github.redkit.region.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.Map;
import java.util.stream.Collectors;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;

import org.springframework.context.SmartLifecycle;

/**
 * The replicators of this region, one per peer, started and stopped with the application
 * context; closing it also closes the peers' script runners and connections.
 */
public class RegionReplicators implements SmartLifecycle, AutoCloseable {

	private final List<RegionReplicator> replicators;

	private final List<AutoCloseable> resources;

	private volatile boolean running;

	/**
	 * Creates the group.
	 * @param replicators one per peer
	 * @param resources closed after the replicators stopped (the peers' connections)
	 */
	public RegionReplicators(List<RegionReplicator> replicators, List<AutoCloseable> resources) {
		this(replicators, resources, RedkitMetrics.NONE);
	}

	/**
	 * Creates the group and registers the outbox depth gauge.
	 * @param replicators one per peer
	 * @param resources closed after the replicators stopped (the peers' connections)
	 * @param metrics receives the outbox depth, as last seen by any replicator
	 */
	public RegionReplicators(List<RegionReplicator> replicators, List<AutoCloseable> resources, RedkitMetrics metrics) {
		this.replicators = List.copyOf(replicators);
		this.resources = List.copyOf(resources);
		metrics.gauge(RegionMeters.OUTBOX_DEPTH, this,
				// each shard's outbox as last seen by any of its replicators, all shards
				// together
				(group) -> group.replicators.stream()
					.collect(Collectors.groupingBy((replicator) -> replicator.keys().shard(),
							Collectors.summarizingLong(RegionReplicator::outboxDepth)))
					.values()
					.stream()
					.mapToLong(LongSummaryStatistics::getMax)
					.sum());
	}

	/**
	 * The replicators, one per peer.
	 * @return the replicators
	 */
	public List<RegionReplicator> replicators() {
		return this.replicators;
	}

	/**
	 * Where replication to each peer stands: the state of its worst shard
	 * ({@link RegionReplicator#state()}), the lag, whether a re-seed is pending, the last
	 * failure and, while this region recovers, the recovery's progress.
	 * @return the states by peer region name
	 */
	public Map<String, Object> peerStates() {
		return PeerStates.of(this.replicators);
	}

	/**
	 * Runs scripts on each peer's Redis, over the replicators' connections.
	 * @return a runner by peer region name
	 */
	public Map<String, RedisScriptRunner> peerRunners() {
		Map<String, RedisScriptRunner> runners = new LinkedHashMap<>();
		this.replicators.forEach((replicator) -> runners.putIfAbsent(replicator.peer(), replicator.peerRunner()));
		return runners;
	}

	@Override
	public void start() {
		this.replicators.forEach(RegionReplicator::start);
		this.running = true;
	}

	@Override
	public void stop() {
		this.replicators.forEach(RegionReplicator::stop);
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public void close() {
		stop();
		// in the reverse order of their creation: a peer's script runner before the
		// connection factory it runs on
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			try {
				this.resources.get(i).close();
			}
			catch (Exception ex) {
				// closing on shutdown: nothing left to do about it
			}
		}
	}

}
