package io.github.redkit.autoconfigure.region;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.StringUtils;

/**
 * Builds the connection factory of a peer region from its URL, failing start-up with the
 * name of the property when the URL cannot work.
 */
final class PeerConnections {

	private PeerConnections() {
	}

	static LettuceConnectionFactory create(String peer, RegionProperties.Peer properties, Duration timeout) {
		LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
			.commandTimeout(timeout);
		String url = properties.getUrl();
		if (properties.isSsl() || (url != null && url.startsWith("rediss:"))) {
			client.useSsl();
		}
		RedisConfiguration configuration = configuration(peer, properties);
		LettuceConnectionFactory factory;
		if (configuration instanceof RedisClusterConfiguration cluster) {
			factory = new LettuceConnectionFactory(cluster, client.build());
		}
		else if (configuration instanceof RedisSentinelConfiguration sentinel) {
			factory = new LettuceConnectionFactory(sentinel, client.build());
		}
		else {
			factory = new LettuceConnectionFactory((RedisStandaloneConfiguration) configuration, client.build());
		}
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Where a peer's Redis is: a standalone URL, a Cluster's nodes, or a master behind
	 * Sentinels, exactly one of them.
	 * @param peer the peer region's name
	 * @param properties its properties
	 * @return the configuration, with the password applied
	 */
	static RedisConfiguration configuration(String peer, RegionProperties.Peer properties) {
		String prefix = "redkit.regions.peers." + peer;
		boolean byUrl = StringUtils.hasText(properties.getUrl());
		boolean byCluster = !properties.getCluster().getNodes().isEmpty();
		RegionProperties.Sentinel sentinel = properties.getSentinel();
		boolean bySentinel = StringUtils.hasText(sentinel.getMaster()) || !sentinel.getNodes().isEmpty();
		if ((byUrl ? 1 : 0) + (byCluster ? 1 : 0) + (bySentinel ? 1 : 0) != 1) {
			throw new IllegalStateException(
					prefix + ": set exactly one of url, cluster.nodes, or sentinel.master with sentinel.nodes");
		}
		String password = properties.getPassword();
		if (byCluster) {
			RedisClusterConfiguration cluster = new RedisClusterConfiguration();
			properties.getCluster()
				.getNodes()
				.forEach((node) -> cluster.addClusterNode(node(prefix + ".cluster.nodes", node)));
			if (StringUtils.hasText(password)) {
				cluster.setPassword(password);
			}
			return cluster;
		}
		if (bySentinel) {
			String master = sentinel.getMaster();
			if (master == null || !StringUtils.hasText(master)) {
				throw new IllegalStateException(prefix + ".sentinel.master must be set with sentinel.nodes");
			}
			if (sentinel.getNodes().isEmpty()) {
				throw new IllegalStateException(prefix + ".sentinel.nodes must name at least one Sentinel");
			}
			RedisSentinelConfiguration configuration = new RedisSentinelConfiguration();
			configuration.master(master);
			sentinel.getNodes().forEach((node) -> configuration.sentinel(node(prefix + ".sentinel.nodes", node)));
			if (StringUtils.hasText(password)) {
				configuration.setPassword(password);
			}
			return configuration;
		}
		RedisStandaloneConfiguration standalone = standalone(prefix + ".url", properties.getUrl());
		if (StringUtils.hasText(password)) {
			standalone.setPassword(password);
		}
		return standalone;
	}

	private static RedisNode node(String property, String node) {
		int colon = node.lastIndexOf(':');
		if (colon <= 0 || colon == node.length() - 1) {
			throw new IllegalStateException(property + ": '" + node + "' is not host:port");
		}
		try {
			return new RedisNode(node.substring(0, colon).trim(), Integer.parseInt(node.substring(colon + 1).trim()));
		}
		catch (NumberFormatException ex) {
			throw new IllegalStateException(property + ": '" + node + "' has no port number", ex);
		}
	}

	static RedisStandaloneConfiguration standalone(String property, @Nullable String url) {
		if (!StringUtils.hasText(url)) {
			throw new IllegalStateException(property + " must be set");
		}
		URI uri;
		try {
			uri = new URI(url);
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(property + " is not a valid URL: " + ex.getMessage(), ex);
		}
		if (!"redis".equals(uri.getScheme()) && !"rediss".equals(uri.getScheme())) {
			throw new IllegalStateException(property + " must start with redis:// or rediss://");
		}
		if (!StringUtils.hasText(uri.getHost())) {
			throw new IllegalStateException(property + " has no host");
		}
		RedisStandaloneConfiguration standalone = new RedisStandaloneConfiguration(uri.getHost(),
				(uri.getPort() > 0) ? uri.getPort() : 6379);
		String userInfo = uri.getUserInfo();
		if (userInfo != null) {
			int colon = userInfo.indexOf(':');
			if (colon >= 0) {
				if (colon > 0) {
					standalone.setUsername(userInfo.substring(0, colon));
				}
				standalone.setPassword(userInfo.substring(colon + 1));
			}
			else {
				standalone.setPassword(userInfo);
			}
		}
		String path = uri.getPath();
		if (path != null && path.length() > 1) {
			try {
				standalone.setDatabase(Integer.parseInt(path.substring(1)));
			}
			catch (NumberFormatException ex) {
				throw new IllegalStateException(property + " names no database number", ex);
			}
		}
		return standalone;
	}

}
