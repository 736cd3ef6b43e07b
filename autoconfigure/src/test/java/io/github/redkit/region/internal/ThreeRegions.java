package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.RedisServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Three real {@code redis-server}s as three regions, {@code eu}, {@code us} and
 * {@code ap}: their connections and the replicators between every pair. The servers and
 * their connection factories are a test class's own ({@code @PrivateRedis(count = 3)} and
 * a factory list), which closes them.
 */
final class ThreeRegions {

	static final List<String> NAMES = List.of("eu", "us", "ap");

	static final RedisKeyspace KEYSPACE = new RedisKeyspace("redkit");

	private final List<RedisServer> servers;

	private final List<LettuceConnectionFactory> factories;

	ThreeRegions(List<RedisServer> servers, List<LettuceConnectionFactory> factories) {
		if (servers.size() != NAMES.size() || factories.size() != NAMES.size()) {
			throw new IllegalArgumentException("servers and factories: one per region of " + NAMES);
		}
		this.servers = servers;
		this.factories = factories;
	}

	RedisServer server(String region) {
		return this.servers.get(NAMES.indexOf(region));
	}

	RedisScriptRunner runner(String region) {
		return new RedisScriptRunner(this.factories.get(NAMES.indexOf(region)));
	}

	/** The other regions' runners, as a region's peers. */
	Map<String, RedisScriptRunner> peers(String region) {
		Map<String, RedisScriptRunner> peers = new LinkedHashMap<>();
		NAMES.stream().filter((other) -> !other.equals(region)).forEach((other) -> peers.put(other, runner(other)));
		return peers;
	}

	/**
	 * A replicator from each region to each other one, not started. A region's
	 * replicators share one recovery from all its peers, as the auto-configuration wires
	 * them: a recovery from one peer alone leaves the other peers' positions where they
	 * were, so the entries counted on an empty Redis reach them as a step back in time
	 * and the region recovers again, adding its own calls twice.
	 */
	List<RegionReplicator> replicators(Duration interval) {
		List<RegionReplicator> replicators = new ArrayList<>();
		for (String origin : NAMES) {
			replicators.addAll(RegionReplicator.toPeers(new RegionShipping(origin, 0, runner(origin), KEYSPACE,
					new RegionRounds(200, interval, Duration.ofMillis(500)),
					new MicrometerRedkitMetrics(SimpleMeterRegistry::new)), peers(origin)));
		}
		return replicators;
	}

	void flushAll() {
		this.servers.forEach(RedisServer::flushAll);
	}

}
