package io.github.redkit.testsupport;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.Set;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.ScanOptions;

/**
 * The keys that match a pattern, found with {@code SCAN}, on every master of a cluster.
 * Tests never send {@code KEYS}: it blocks a server other tests share for the whole key
 * space, and it is what the project tells users not to send.
 */
public final class ScannedKeys {

	private ScannedKeys() {
	}

	/**
	 * The keys that match a pattern, each once (a {@code SCAN} may return a key twice).
	 * @param template a template whose keys are strings
	 * @param pattern a glob, as {@code SCAN}'s {@code MATCH} takes it
	 * @return the keys found, in the order found
	 */
	public static Set<String> matching(RedisTemplate<String, ?> template, String pattern) {
		return matching(template.getRequiredConnectionFactory(), pattern);
	}

	/**
	 * The keys that match a pattern, each once (a {@code SCAN} may return a key twice).
	 * @param factory the connection factory
	 * @param pattern a glob, as {@code SCAN}'s {@code MATCH} takes it
	 * @return the keys found (UTF-8), in the order found
	 */
	public static Set<String> matching(RedisConnectionFactory factory, String pattern) {
		ScanOptions options = ScanOptions.scanOptions().match(pattern).count(1000).build();
		Set<String> keys = new LinkedHashSet<>();
		try (RedisConnection connection = factory.getConnection()) {
			if (connection instanceof RedisClusterConnection cluster) {
				// a cluster's SCAN walks one node
				for (RedisClusterNode node : cluster.clusterGetNodes()) {
					if (node.isMaster()) {
						collect(cluster.scan(node, options), keys);
					}
				}
			}
			else {
				collect(connection.keyCommands().scan(options), keys);
			}
		}
		return keys;
	}

	private static void collect(Cursor<byte[]> cursor, Set<String> keys) {
		try (cursor) {
			cursor.forEachRemaining((key) -> keys.add(new String(key, StandardCharsets.UTF_8)));
		}
	}

}
