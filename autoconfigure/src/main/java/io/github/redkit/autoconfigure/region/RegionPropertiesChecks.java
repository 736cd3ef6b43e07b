package io.github.redkit.autoconfigure.region;

import java.util.Set;

import io.github.redkit.autoconfigure.DurationChecks;

import org.springframework.util.StringUtils;

/**
 * Checks {@link RegionProperties} once at start-up; a value that cannot work fails
 * start-up with a message naming its property.
 */
final class RegionPropertiesChecks {

	private static final String PREFIX = "redkit.regions";

	private static final Set<String> REPLICATED = Set.of("counters", "budgets", "rate-limits");

	private RegionPropertiesChecks() {
	}

	/**
	 * Checks the properties.
	 * @param properties the properties
	 * @return the local region's name
	 */
	static String checked(RegionProperties properties) {
		String local = properties.getLocal();
		if (local == null || !StringUtils.hasText(local)) {
			throw new IllegalStateException(PREFIX + ".local must not be empty");
		}
		if (properties.getPeers().containsKey(properties.getLocal())) {
			throw new IllegalStateException(PREFIX + ".peers must not contain the local region '"
					+ properties.getLocal() + "' (" + PREFIX + ".local)");
		}
		properties.getPeers().forEach(PeerConnections::configuration);
		for (String replicated : properties.getReplicate()) {
			if (!REPLICATED.contains(replicated)) {
				throw new IllegalStateException(
						PREFIX + ".replicate: unknown '" + replicated + "' (counters, budgets, rate-limits)");
			}
		}
		int shards = properties.getOutbox().getShards();
		if (shards < 1 || shards > 1024) {
			throw new IllegalStateException(PREFIX + ".outbox.shards must be between 1 and 1024 (was " + shards + ")");
		}
		if (properties.getOutbox().getMaxLength() <= 0) {
			throw new IllegalStateException(PREFIX + ".outbox.max-length must be positive");
		}
		if (properties.getReplication().getBatchSize() <= 0) {
			throw new IllegalStateException(PREFIX + ".replication.batch-size must be positive");
		}
		DurationChecks.positive(properties.getReplication().getInterval(), PREFIX + ".replication.interval");
		DurationChecks.positive(properties.getTimeout(), PREFIX + ".timeout");
		DurationChecks.positive(properties.getHealth().getTimeout(), PREFIX + ".health.timeout");
		DurationChecks.positive(properties.getBudgets().getOperationTtl(), PREFIX + ".budgets.operation-ttl");
		return local;
	}

}
