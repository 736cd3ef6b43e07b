package io.github.redkit.test.boot;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

/**
 * Key commands the test helpers send through the application's own connection factory:
 * {@code SCAN} on every master of a cluster, never {@code KEYS}.
 */
final class RedisKeys {

	private static final int BATCH = 500;

	private RedisKeys() {
	}

	/**
	 * Escapes the glob characters of a literal for {@code SCAN MATCH}.
	 * @param literal the literal
	 * @return a pattern that matches only the literal
	 */
	static String globLiteral(String literal) {
		StringBuilder pattern = new StringBuilder(literal.length() + 8);
		for (char c : literal.toCharArray()) {
			if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
				pattern.append('\\');
			}
			pattern.append(c);
		}
		return pattern.toString();
	}

	/**
	 * Lists the keys that match a pattern, on every master.
	 * @param factory the connection factory
	 * @param pattern a {@code SCAN MATCH} pattern
	 * @return the keys
	 */
	static List<String> scan(RedisConnectionFactory factory, String pattern) {
		List<String> keys = new ArrayList<>();
		try (RedisConnection connection = factory.getConnection()) {
			scan(connection, pattern, (key) -> keys.add(string(key)));
		}
		return keys;
	}

	/**
	 * Removes the keys that match a pattern, on every master, with {@code UNLINK} in
	 * batches.
	 * @param factory the connection factory
	 * @param pattern a {@code SCAN MATCH} pattern
	 * @return how many keys were removed
	 */
	static long unlinkMatching(RedisConnectionFactory factory, String pattern) {
		long removed = 0;
		try (RedisConnection connection = factory.getConnection()) {
			List<byte[]> batch = new ArrayList<>(BATCH);
			long[] count = { 0 };
			scan(connection, pattern, (key) -> {
				batch.add(key);
				if (batch.size() == BATCH) {
					count[0] += unlink(connection, batch);
				}
			});
			removed = count[0] + unlink(connection, batch);
		}
		return removed;
	}

	private static long unlink(RedisConnection connection, List<byte[]> batch) {
		if (batch.isEmpty()) {
			return 0;
		}
		// a cluster connection splits a batch of several slots into one UNLINK per slot
		Long removed = connection.keyCommands().unlink(batch.toArray(new byte[0][]));
		batch.clear();
		return (removed != null) ? removed : 0;
	}

	private static void scan(RedisConnection connection, String pattern, Consumer<byte[]> action) {
		ScanOptions options = ScanOptions.scanOptions().match(pattern).count(1000).build();
		if (connection instanceof RedisClusterConnection cluster) {
			for (RedisClusterNode node : cluster.clusterGetNodes()) {
				if (node.isMaster()) {
					try (Cursor<byte[]> cursor = cluster.scan(node, options)) {
						cursor.forEachRemaining(action);
					}
				}
			}
			return;
		}
		try (Cursor<byte[]> cursor = connection.keyCommands().scan(options)) {
			cursor.forEachRemaining(action);
		}
	}

	/**
	 * Copies a key, with its TTL, over another key of the same slot.
	 * @param factory the connection factory
	 * @param source the key to copy
	 * @param target the copy
	 */
	static void copy(RedisConnectionFactory factory, String source, String target) {
		try (RedisConnection connection = factory.getConnection()) {
			connection.keyCommands().copy(bytes(source), bytes(target), true);
		}
	}

	private static byte[] bytes(String key) {
		return key.getBytes(StandardCharsets.UTF_8);
	}

	private static String string(byte[] key) {
		return new String(key, StandardCharsets.UTF_8);
	}

}
