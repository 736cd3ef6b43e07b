package io.github.redkit.cache.internal;

import java.util.ArrayList;
import java.util.List;

import org.springframework.data.redis.cache.BatchStrategy;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

/**
 * Clears a cache with {@code SCAN MATCH ... COUNT n} and deletes what each batch found
 * with {@code UNLINK}, never with {@code KEYS} (which blocks Redis on a large keyspace).
 * On a cluster every master is scanned in turn.
 */
public final class ScanBatchStrategy implements BatchStrategy {

	private final int batchSize;

	/**
	 * Creates a strategy.
	 * @param batchSize the {@code COUNT} hint and the number of keys unlinked at once
	 */
	public ScanBatchStrategy(int batchSize) {
		this.batchSize = batchSize;
	}

	@Override
	public long cleanCache(RedisConnection connection, String name, byte[] pattern) {
		ScanOptions options = ScanOptions.scanOptions().count(this.batchSize).match(pattern).build();
		if (connection instanceof RedisClusterConnection cluster) {
			long removed = 0;
			for (RedisClusterNode node : cluster.clusterGetNodes()) {
				if (node.isMaster()) {
					removed += unlink(connection, cluster.scan(node, options));
				}
			}
			return removed;
		}
		return unlink(connection, connection.keyCommands().scan(options));
	}

	private long unlink(RedisConnection connection, Cursor<byte[]> cursor) {
		long removed = 0;
		List<byte[]> batch = new ArrayList<>(this.batchSize);
		try (cursor) {
			while (cursor.hasNext()) {
				batch.add(cursor.next());
				if (batch.size() >= this.batchSize) {
					removed += flush(connection, batch);
				}
			}
		}
		return removed + flush(connection, batch);
	}

	private static long flush(RedisConnection connection, List<byte[]> batch) {
		if (batch.isEmpty()) {
			return 0;
		}
		Long removed = connection.keyCommands().unlink(batch.toArray(new byte[0][]));
		batch.clear();
		return (removed != null) ? removed : 0;
	}

}
