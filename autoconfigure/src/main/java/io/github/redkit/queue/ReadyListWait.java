package io.github.redkit.queue;

import java.nio.charset.StandardCharsets;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisListCommands.Direction;

/**
 * The wait of one consumer thread on an empty queue: {@code BLMOVE ready ready <side>
 * <side>} moves the head onto itself, so it changes nothing but returns as soon as a
 * message arrives. It blocks a connection of its own, opened on first use.
 */
final class ReadyListWait implements AutoCloseable {

	/**
	 * Redis 6.2 reads a timeout of 0.001 s as 0, which blocks forever.
	 */
	private static final long MIN_BLOCK_MILLIS = 10;

	private static final Log logger = LogFactory.getLog(ReadyListWait.class);

	private final RedisConnectionFactory connectionFactory;

	private final byte[] ready;

	private final Direction side;

	private @Nullable RedisConnection connection;

	ReadyListWait(RedisConnectionFactory connectionFactory, String readyKey, QueueOrder order) {
		this.connectionFactory = connectionFactory;
		this.ready = readyKey.getBytes(StandardCharsets.UTF_8);
		this.side = (order == QueueOrder.LIFO) ? Direction.RIGHT : Direction.LEFT;
	}

	/**
	 * Waits until a message arrives or the time is up.
	 * @param millis the longest wait
	 */
	void await(long millis) {
		if (this.connection == null) {
			this.connection = this.connectionFactory.getConnection();
		}
		long timeout = Math.max(MIN_BLOCK_MILLIS, millis);
		this.connection.listCommands().bLMove(this.ready, this.ready, this.side, this.side, timeout / 1000.0);
	}

	@Override
	public void close() {
		if (this.connection != null) {
			try {
				this.connection.close();
			}
			catch (RuntimeException ex) {
				logger.debug("Cannot close a blocking queue connection", ex);
			}
			this.connection = null;
		}
	}

}
