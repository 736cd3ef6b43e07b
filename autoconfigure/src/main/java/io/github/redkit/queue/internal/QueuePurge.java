package io.github.redkit.queue.internal;

import java.nio.charset.StandardCharsets;

import io.github.redkit.core.RedisKeyspace;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * Empties a queue: its ready, in-flight, delayed, collapse, stream and dead-letter keys
 * go in one {@code DEL} (they share a hash tag, so one cluster slot). A queue reading a
 * stream another application writes loses its dead letters and Redkit's records, never
 * that stream or its group. For operators, e.g. the actuator endpoint; a listener holding
 * a message of a purged queue will find its ack refused.
 */
public final class QueuePurge {

	private QueuePurge() {
	}

	/**
	 * Deletes every key of a queue that Redkit owns.
	 * @param connection the connection
	 * @param keys the queue's keys, as its settings say
	 * ({@link QueueKeys#of(RedisKeyspace, String, io.github.redkit.queue.QueueSettings)})
	 * @return how many keys existed
	 */
	public static long purge(RedisConnection connection, QueueKeys keys) {
		Long deleted = connection.keyCommands()
			.del(keys.owned().stream().map(QueuePurge::bytes).toArray(byte[][]::new));
		return (deleted != null) ? deleted : 0;
	}

	private static byte[] bytes(String key) {
		return key.getBytes(StandardCharsets.UTF_8);
	}

}
