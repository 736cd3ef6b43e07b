package io.github.redkit.region.actuate;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.redkit.actuate.RedkitEndpointSection;
import io.github.redkit.region.internal.RegionReplicators;
import org.jspecify.annotations.Nullable;

/**
 * The {@code regions} section of the {@code redkit} endpoint: this region and, for each
 * peer, where replication stands (the state of its worst shard, the lag, a re-seed
 * pending, the last failure) and, while this region's Redis recovers, how far the
 * recovery got.
 */
public final class RegionEndpointSection implements RedkitEndpointSection {

	private final String region;

	private final RegionReplicators replicators;

	/**
	 * Creates the section.
	 * @param region this region's name
	 * @param replicators this instance's replicators
	 */
	public RegionEndpointSection(String region, RegionReplicators replicators) {
		this.region = region;
		this.replicators = replicators;
	}

	@Override
	public String name() {
		return "regions";
	}

	@Override
	public String capability() {
		return "regions";
	}

	@Override
	public Object read(@Nullable String cursor, @Nullable Integer count) {
		Map<String, Object> section = new LinkedHashMap<>();
		section.put("region", this.region);
		section.put("replicating", this.replicators.isRunning());
		section.put("peers", this.replicators.peerStates());
		return section;
	}

}
