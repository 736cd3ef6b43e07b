package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.region.RegionalCounters;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisNode;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import io.github.redkit.testsupport.TcpProxy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A region whose Redis fails over to a replica that is behind (the replica cut off, the
 * master acknowledging and shipping more, then dying) comes back with older data, as
 * after a restore from an older snapshot: its peers notice, it recovers, and every region
 * converges to the exact sum. {@code eu} is a real master and replica reached through a
 * proxy that follows the failover, as clients following Sentinel would; {@code us} and
 * {@code ap} are standalone servers.
 */
class RegionFailoverTests {

	private static final Duration DRAIN = Duration.ofSeconds(30);

	private static final RedisKeyspace KEYSPACE = new RedisKeyspace("redkit");

	private static final List<String> NAMES = List.of("eu", "us", "ap");

	// failed over by the class's one test
	@PrivateRedis(replica = true)
	private static RedisNode eu;

	private final TcpProxy euLink = TcpProxy.start(eu.port());

	// the regions' other two: plain servers of the class's own, never failed over
	@PrivateRedis(count = 2)
	private static List<RedisServer> peers;

	private final Map<String, LettuceConnectionFactory> factories = new LinkedHashMap<>();

	private final List<RegionReplicator> replicators = new ArrayList<>();

	@AfterEach
	void stop() {
		this.replicators.forEach(RegionReplicator::stop);
		this.factories.values().forEach(LettuceConnectionFactory::destroy);
		this.euLink.close();
	}

	@Test
	void aRegionFailedOverToAReplicaBehindIsNoticedAndEveryRegionConvergesToTheExactSum() {
		connect();
		Map<String, RegionalCounters> counters = counters();
		NAMES.forEach(this::group);
		this.replicators.forEach(RegionReplicator::start);
		counters.get("eu").increment("clicks", 10);
		counters.get("us").increment("clicks", 100);
		awaitEverywhere(counters, "clicks", 110);
		try (RespClient client = eu.client()) {
			// WAIT counts the replicas that have this connection's writes, so the ones
			// before it too
			client.call("SET", "replicated", "yes");
			assertThat(client.call("WAIT", "1", "5000")).as("the replica in sync").isEqualTo(1L);
		}
		eu.cutReplica();
		// acknowledged by the master and shipped, never replicated: the peers hold eu's
		// slot at 15
		counters.get("eu").increment("clicks", 5);
		counters.get("eu").increment("later", 3);
		awaitEverywhere(counters, "clicks", 115);
		awaitEverywhere(counters, "later", 3);
		eu.promoteReplica();
		this.euLink.retarget(eu.port());
		// counted on the replica's older data, before anything noticed
		await().atMost(DRAIN).ignoreExceptions().untilAsserted(() -> counters.get("eu").increment("clicks", 1));
		awaitEverywhere(counters, "clicks", 116);
		awaitEverywhere(counters, "later", 3);
		counters.get("eu").increment("clicks", 1);
		awaitEverywhere(counters, "clicks", 117);
	}

	private void connect() {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(5))
			.build();
		LettuceConnectionFactory euFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(RedisServer.HOST, this.euLink.port()), client);
		euFactory.afterPropertiesSet();
		euFactory.start();
		this.factories.put("eu", euFactory);
		this.factories.put("us", peers.get(0).createConnectionFactory());
		this.factories.put("ap", peers.get(1).createConnectionFactory());
	}

	private RedisScriptRunner runner(String region) {
		return new RedisScriptRunner(this.factories.get(region));
	}

	private Map<String, RegionalCounters> counters() {
		Map<String, RegionalCounters> counters = new LinkedHashMap<>();
		for (String name : NAMES) {
			counters.put(name,
					new RedisRegionalCounters(runner(name), KEYSPACE, name, 1_000_000, Duration.ofSeconds(10)));
		}
		return counters;
	}

	/** One instance of a region: a replicator per peer, recovering from all of them. */
	private void group(String region) {
		Map<String, RedisScriptRunner> peers = new LinkedHashMap<>();
		NAMES.stream().filter((peer) -> !peer.equals(region)).forEach((peer) -> peers.put(peer, runner(peer)));
		List<RegionReplicator> group = RegionReplicator.toPeers(new RegionShipping(region, 0, runner(region), KEYSPACE,
				new RegionRounds(200, Duration.ofMillis(10), Duration.ofMillis(500)),
				new MicrometerRedkitMetrics(SimpleMeterRegistry::new)), peers);
		this.replicators.addAll(group);
	}

	private static void awaitEverywhere(Map<String, RegionalCounters> counters, String name, long expected) {
		await().atMost(DRAIN)
			.ignoreExceptions()
			.untilAsserted(() -> counters.forEach((region,
					regional) -> assertThat(regional.get(name)).as(name + " in " + region).isEqualTo(expected)));
	}

}
