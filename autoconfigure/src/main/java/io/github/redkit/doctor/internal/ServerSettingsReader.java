package io.github.redkit.doctor.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisClusterNode.Flag;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Reads the settings the doctor judges from every node that takes writes: the one server,
 * or each master of a cluster (a master marked failed, or one that does not answer, is
 * read as failed, not as the whole cluster's silence). A managed service may refuse
 * {@code CONFIG} (renamed, disabled or denied by an ACL); the fields {@code INFO} mirrors
 * are then read from it.
 */
final class ServerSettingsReader {

	private static final List<String> CONFIG_PATTERNS = List.of("maxmemory*", "append*", "save",
			"min-replicas-to-write");

	private static final List<String> INFO_SECTIONS = List.of("server", "memory", "persistence", "replication");

	private final RedisConnectionFactory connectionFactory;

	ServerSettingsReader(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/**
	 * The readings to make: one per node that takes writes, each on a connection of its
	 * own, so that one node that does not answer holds up no other.
	 * @return the one server's reading, or one per master of a cluster
	 */
	List<NodeReading> readings() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			if (connection instanceof RedisClusterConnection cluster) {
				List<NodeReading> readings = new ArrayList<>();
				for (RedisClusterNode node : cluster.clusterGetNodes()) {
					if (node.isMaster()) {
						readings.add(new NodeReading(node.asString(), true, () -> read(node)));
					}
				}
				return readings;
			}
		}
		return List.of(new NodeReading("server", false, this::readServer));
	}

	private NodeSettings readServer() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return read("server", (pattern) -> connection.serverCommands().getConfig(pattern),
					(section) -> connection.serverCommands().info(section));
		}
	}

	private NodeSettings read(RedisClusterNode node) {
		try (RedisClusterConnection cluster = this.connectionFactory.getClusterConnection()) {
			return read(cluster, node);
		}
	}

	// a master the cluster marked failed, or one that does not answer, is reported as
	// such: the live masters are still judged
	private static NodeSettings read(RedisClusterConnection cluster, RedisClusterNode node) {
		Set<Flag> flags = node.getFlags();
		if (flags.contains(Flag.FAIL) || flags.contains(Flag.PFAIL) || flags.contains(Flag.NOADDR)) {
			String raw = flags.stream().sorted().map(Flag::getRaw).collect(Collectors.joining(","));
			return NodeSettings.failed(node.asString(), "marked " + raw + " by the cluster");
		}
		try {
			return read(node.asString(), (pattern) -> cluster.serverCommands().getConfig(node, pattern),
					(section) -> cluster.serverCommands().info(node, section));
		}
		catch (DataAccessResourceFailureException | TransientDataAccessException ex) {
			return NodeSettings.failed(node.asString(), "did not answer (" + reason(ex) + ")");
		}
	}

	private static NodeSettings read(String node, Function<String, @Nullable Properties> config,
			Function<String, @Nullable Properties> info) {
		Map<String, String> settings = new HashMap<>();
		String configRefused = null;
		for (String pattern : CONFIG_PATTERNS) {
			try {
				copy(config.apply(pattern), settings);
			}
			catch (RuntimeException ex) {
				configRefused = refusal(ex);
				break;
			}
		}
		Map<String, String> fields = new HashMap<>();
		String infoRefused = null;
		for (String section : INFO_SECTIONS) {
			try {
				copy(info.apply(section), fields);
			}
			catch (RuntimeException ex) {
				infoRefused = refusal(ex);
				break;
			}
		}
		return new NodeSettings(node, settings, configRefused, fields, infoRefused);
	}

	private static void copy(@Nullable Properties properties, Map<String, String> target) {
		if (properties != null) {
			properties.forEach((name, value) -> target.put(String.valueOf(name), String.valueOf(value)));
		}
	}

	// a server that answers with an error refused; one that does not answer fails the
	// whole reading
	private static String refusal(RuntimeException ex) {
		if (ex instanceof DataAccessResourceFailureException || ex instanceof TransientDataAccessException) {
			throw ex;
		}
		return reason(ex);
	}

	// the server's own words ("ERR unknown command 'CONFIG'", "NOPERM …") are at the root
	static String reason(Throwable ex) {
		Throwable cause = ex;
		while (cause.getCause() != null && cause.getCause() != cause) {
			cause = cause.getCause();
		}
		return String.valueOf(cause.getMessage());
	}

	/**
	 * One node's reading, not yet made.
	 *
	 * @param node the node's address ({@code server} for a server that is not a cluster)
	 * @param clusterNode whether it is one master of a cluster, judged apart from the
	 * others
	 * @param read reads its settings, blocking
	 */
	record NodeReading(String node, boolean clusterNode, Supplier<NodeSettings> read) {

	}

}
