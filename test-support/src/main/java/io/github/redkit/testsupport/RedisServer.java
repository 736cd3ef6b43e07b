package io.github.redkit.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import io.lettuce.core.api.StatefulConnection;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

/**
 * A real Redis server (or cluster) started for tests, with what a test needs to talk to
 * it: Spring properties, a connection factory, raw commands and command statistics.
 */
public interface RedisServer extends AutoCloseable {

	/** The loopback host every node listens on. */
	String HOST = "127.0.0.1";

	/**
	 * The {@code max-active} of {@link #createPooledConnectionFactory()}'s pool (Boot's
	 * default).
	 */
	int POOL_SIZE = 8;

	/**
	 * The ports of the nodes: one for a standalone server, one per master for a cluster.
	 * @return the ports
	 */
	List<Integer> ports();

	/**
	 * The port of the first node.
	 * @return the port
	 */
	default int port() {
		return ports().get(0);
	}

	/**
	 * Whether this is a Redis Cluster.
	 * @return {@code true} for a cluster
	 */
	boolean isCluster();

	/**
	 * How the server was started, for logs (process or container, binary, version).
	 * @return a description
	 */
	String description();

	/**
	 * The version the server reports: {@code redis_version}, or {@code Valkey} and its
	 * {@code valkey_version} (Valkey reports a {@code redis_version} of 7.2.4 too).
	 * @return the version
	 */
	default String version() {
		try (RespClient client = client(port())) {
			String info = client.callForString("INFO", "server");
			return field(info, "valkey_version").map((version) -> "Valkey " + version)
				.or(() -> field(info, "redis_version"))
				.orElse("unknown");
		}
	}

	private static java.util.Optional<String> field(String info, String name) {
		return info.lines()
			.filter((line) -> line.startsWith(name + ":"))
			.map((line) -> line.substring(name.length() + 1).trim())
			.findFirst();
	}

	/**
	 * Spring Boot properties that point {@code spring.data.redis} at this server.
	 * @return {@code name=value} pairs
	 */
	default String[] springProperties() {
		if (isCluster()) {
			String nodes = ports().stream().map((port) -> HOST + ":" + port).collect(Collectors.joining(","));
			return new String[] { "spring.data.redis.cluster.nodes=" + nodes };
		}
		return new String[] { "spring.data.redis.host=" + HOST, "spring.data.redis.port=" + port() };
	}

	/**
	 * Opens a raw client to one node.
	 * @param port the node's port
	 * @return a connected client; close it after use
	 */
	default RespClient client(int port) {
		return RespClient.connect(HOST, port, Duration.ofSeconds(5));
	}

	/**
	 * Runs one command on every node and returns the replies.
	 * @param command the command and its arguments
	 * @return one reply per node
	 */
	default List<Object> callOnEveryNode(String... command) {
		List<Object> replies = new ArrayList<>();
		for (int port : ports()) {
			try (RespClient client = client(port)) {
				replies.add(client.call(command));
			}
		}
		return replies;
	}

	/**
	 * Removes every key on every node.
	 */
	default void flushAll() {
		callOnEveryNode("FLUSHALL");
	}

	/**
	 * The commands this server's own machinery sends to its nodes whatever clients do,
	 * which a count of one operation's commands may catch: leave them out with
	 * {@link CommandStats#without(Set)}.
	 * @return the command names, lower case; none by default
	 */
	default Set<String> backgroundCommands() {
		return Set.of();
	}

	/**
	 * Reads {@code INFO commandstats} of every node, summed.
	 * @return a snapshot
	 */
	default CommandStats commandStats() {
		return CommandStats.read(this);
	}

	/**
	 * Creates and starts a Lettuce connection factory for this server.
	 * @return a started factory; destroy it after use
	 */
	default LettuceConnectionFactory createConnectionFactory() {
		return createConnectionFactory(Duration.ofSeconds(5));
	}

	/**
	 * Creates and starts a Lettuce connection factory for this server whose commands time
	 * out after a time of the test's.
	 * @param commandTimeout how long a command waits for its answer
	 * @return a started factory; destroy it after use
	 */
	default LettuceConnectionFactory createConnectionFactory(Duration commandTimeout) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build();
		LettuceConnectionFactory factory;
		if (isCluster()) {
			RedisClusterConfiguration cluster = new RedisClusterConfiguration();
			ports().forEach((port) -> cluster.clusterNode(HOST, port));
			factory = new LettuceConnectionFactory(cluster, client);
		}
		else {
			factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(HOST, port()), client);
		}
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * The port of the master that serves a slot now (a slot being migrated counts for the
	 * master it is migrated from); a standalone server's own port.
	 * @param slot the slot
	 * @return the master's own port
	 */
	default int masterOf(int slot) {
		if (!isCluster()) {
			return port();
		}
		for (int port : ports()) {
			try (RespClient node = client(port)) {
				String myself = node.callForString("CLUSTER", "NODES")
					.lines()
					.filter((line) -> line.contains("myself"))
					.findFirst()
					.orElseThrow();
				String[] fields = myself.split(" ");
				for (int i = 8; i < fields.length; i++) {
					// a slot being migrated or imported: [slot->-id], [slot-<-id]
					if (fields[i].startsWith("[")) {
						continue;
					}
					String[] range = fields[i].split("-");
					if (slot >= Integer.parseInt(range[0]) && slot <= Integer.parseInt(range[range.length - 1])) {
						return port;
					}
				}
			}
		}
		throw new IllegalStateException("No master serves slot " + slot);
	}

	/**
	 * A started connection factory to a standalone server through a pool of dedicated
	 * connections, as {@code spring.data.redis.lettuce.pool.enabled=true} with
	 * {@code shareNativeConnection=false}: every command borrows a connection.
	 * @return the connection factory; the caller destroys it
	 */
	default LettuceConnectionFactory createPooledConnectionFactory() {
		return createPooledConnectionFactory(Duration.ofSeconds(5));
	}

	/**
	 * A started connection factory to a standalone server through a pool of dedicated
	 * connections (see {@link #createPooledConnectionFactory()}) whose commands time out
	 * after a time of the test's.
	 * @param commandTimeout how long a command waits for its answer
	 * @return the connection factory; the caller destroys it
	 */
	default LettuceConnectionFactory createPooledConnectionFactory(Duration commandTimeout) {
		GenericObjectPoolConfig<StatefulConnection<?, ?>> pool = new GenericObjectPoolConfig<>();
		pool.setMaxTotal(POOL_SIZE);
		LettuceClientConfiguration client = LettucePoolingClientConfiguration.builder()
			.poolConfig(pool)
			.commandTimeout(commandTimeout)
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(HOST, port()),
				client);
		factory.setShareNativeConnection(false);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Stops the server, keeping its ports so that {@link #start()} brings it back empty.
	 */
	void stop();

	/**
	 * Starts a stopped server again on the same ports.
	 */
	void start();

	/**
	 * Freezes the server: connections stay open but nothing is answered.
	 */
	void pause();

	/**
	 * Lets a paused server answer again.
	 */
	void resume();

	@Override
	void close();

}
