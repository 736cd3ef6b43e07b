package io.github.redkit.region;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Health of several regions: DOWN only when this region's Redis does not answer, since
 * decisions stay local; each peer's replication (state, lag, re-seed, last failure) is
 * reported in the details, so a region that is away or lagging is seen but never takes
 * this one out of service.
 */
public class RegionHealthIndicator extends AbstractHealthIndicator {

	private final RegionReplicators replicators;

	private final RedisConnectionFactory local;

	/**
	 * Creates the indicator.
	 * @param replicators one replicator per peer region
	 * @param local this region's Redis
	 */
	public RegionHealthIndicator(RegionReplicators replicators, RedisConnectionFactory local) {
		super("Regions health check failed");
		this.replicators = replicators;
		this.local = local;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		Map<String, Object> peers = new LinkedHashMap<>();
		for (RegionReplicator replicator : this.replicators.replicators()) {
			peers.put(replicator.peer(), peer(replicator));
		}
		builder.withDetail("peers", peers);
		try (RedisConnection connection = this.local.getConnection()) {
			connection.ping();
			builder.up();
		}
		catch (RuntimeException ex) {
			builder.down(ex);
		}
	}

	private static Map<String, Object> peer(RegionReplicator replicator) {
		Map<String, Object> peer = new LinkedHashMap<>();
		peer.put("state", replicator.state());
		peer.put("lagEntries", replicator.lagEntries());
		peer.put("lagSeconds", replicator.lag().toMillis() / 1000.0);
		peer.put("reseedRequired", replicator.isReseedRequired());
		Throwable lastError = replicator.lastError();
		Duration since = replicator.sinceLastError();
		if (lastError != null && since != null) {
			peer.put("lastError", lastError.getClass().getSimpleName() + ": " + lastError.getMessage());
			peer.put("lastErrorAgeSeconds", since.toSeconds());
		}
		return peer;
	}

}
