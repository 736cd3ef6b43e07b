package io.github.redkit.queue.internal;

import java.nio.charset.StandardCharsets;

import io.github.redkit.core.RedisKeyspace;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * Empties a queue: its ready, in-flight, delayed, collapse, stream and dead-letter keys
 * go in one {@code DEL} (they share a hash tag, so one cluster slot). For operators, e.g.
 * the actuator endpoint; a listener holding a message of a purged queue will find its ack
 * refused.
 */
public final class QueuePurge {

	private QueuePurge() {
	}

	/**
	 * Deletes every key of a queue.
	 * @param connection the connection
	 * @param keyspace the keyspace
	 * @param queue the queue name
	 * @return how many keys existed
	 */
	public static long purge(RedisConnection connection, RedisKeyspace keyspace, String queue) {
		QueueKeys keys = QueueKeys.of(keyspace, queue);
		Long deleted = connection.keyCommands()
			.del(bytes(keys.ready()), bytes(keys.inFlight()), bytes(keys.delayed()), bytes(keys.collapse()),
					bytes(keys.dead()), bytes(keys.deadErrors()), bytes(keys.deadIndex()), bytes(keys.nextDue()),
					bytes(keys.stream()), bytes(keys.claimCursor()));
		return (deleted != null) ? deleted : 0;
	}

	private static byte[] bytes(String key) {
		return key.getBytes(StandardCharsets.UTF_8);
	}

}
