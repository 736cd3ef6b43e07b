package io.github.redkit.testsupport;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A cluster of a test class's own whose every master is reached through a
 * {@link TcpProxy} of its own: each node announces its proxy's port, to clients and (by
 * gossip) to the other nodes, so that a test can cut one master's connection after a
 * write and see what Lettuce's re-sent command does there (issue 43, issue 46).
 */
public final class ProxiedCluster implements AutoCloseable {

	private final RedisServer cluster;

	// each master's proxy, by the master's own port
	private final Map<Integer, TcpProxy> links = new LinkedHashMap<>();

	private ProxiedCluster(RedisServer cluster) {
		this.cluster = cluster;
	}

	/**
	 * Puts a proxy before every master of a cluster and waits until every node announces
	 * them all.
	 * @param cluster a cluster no other class uses
	 * ({@code @PrivateRedis(cluster = true)})
	 * @return the proxied cluster; close it after the class's tests (a
	 * {@code @PrivateRedis ProxiedCluster} field is, with its cluster's)
	 */
	public static ProxiedCluster of(RedisServer cluster) {
		ProxiedCluster proxied = new ProxiedCluster(cluster);
		for (int port : cluster.ports()) {
			TcpProxy link = TcpProxy.start(port);
			proxied.links.put(port, link);
			try (RespClient node = cluster.client(port)) {
				node.call("CONFIG", "SET", "cluster-announce-port", String.valueOf(link.port()));
			}
		}
		List<String> announced = proxied.links.values().stream().map((link) -> ":" + link.port() + "@").toList();
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!announces(cluster, announced)) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("The nodes of " + cluster.ports() + " do not announce " + announced);
			}
			RedisProcess.sleep(50);
		}
		return proxied;
	}

	private static boolean announces(RedisServer cluster, List<String> announced) {
		return cluster.ports().stream().allMatch((port) -> {
			try (RespClient node = cluster.client(port)) {
				String nodes = node.callForString("CLUSTER", "NODES");
				return announced.stream().allMatch(nodes::contains);
			}
		});
	}

	/**
	 * The proxy before a master.
	 * @param master the master's own port
	 * @return its proxy
	 */
	public TcpProxy link(int master) {
		TcpProxy link = this.links.get(master);
		if (link == null) {
			throw new IllegalArgumentException("No master on port " + master);
		}
		return link;
	}

	/**
	 * The port of the master that serves a slot now.
	 * @param slot the slot
	 * @return the master's own port, as {@link RedisServer#masterOf(int)}
	 */
	public int masterOf(int slot) {
		return this.cluster.masterOf(slot);
	}

	/**
	 * A started connection factory that reaches the cluster through the proxies, with no
	 * topology refresh on a redirection (Lettuce's default): its connections to a master
	 * would race a test's write for the cut armed on that master's proxy.
	 * @param timeout the command timeout
	 * @return the factory; destroy it after use
	 */
	public LettuceConnectionFactory connectionFactory(Duration timeout) {
		RedisClusterConfiguration configuration = new RedisClusterConfiguration();
		this.links.values().forEach((link) -> configuration.clusterNode(RedisServer.HOST, link.port()));
		ClusterClientOptions options = ClusterClientOptions.builder()
			.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder().disableAllAdaptiveRefreshTriggers().build())
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().clientOptions(options).commandTimeout(timeout).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	@Override
	public void close() {
		this.links.values().forEach(TcpProxy::close);
		this.links.clear();
	}

}
