package io.github.redkit.core;

import java.util.ArrayList;
import java.util.List;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

/**
 * Removes the keys of an application that tests share, so that each test starts from an
 * empty key space instead of from a new application.
 */
public final class ApplicationKeys {

	private ApplicationKeys() {
	}

	/**
	 * Deletes every key under the application's {@code redkit.key-prefix}, on every
	 * master of a cluster.
	 * @param context a running application
	 */
	public static void remove(ConfigurableApplicationContext context) {
		String prefix = context.getEnvironment().getRequiredProperty("redkit.key-prefix");
		ScanOptions options = ScanOptions.scanOptions().match(prefix + "*").count(1000).build();
		try (RedisConnection connection = context.getBean(RedisConnectionFactory.class).getConnection()) {
			List<byte[]> keys = new ArrayList<>();
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
			// one key a call: a cluster's keys are in several slots
			keys.forEach((key) -> connection.keyCommands().del(key));
		}
	}

	private static void collect(Cursor<byte[]> cursor, List<byte[]> keys) {
		try (cursor) {
			cursor.forEachRemaining(keys::add);
		}
	}

}
