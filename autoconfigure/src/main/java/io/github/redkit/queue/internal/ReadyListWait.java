package io.github.redkit.queue.internal;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.github.redkit.queue.QueueOrder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisListCommands.Direction;

/**
 * The wait of one consumer thread on an empty queue: {@code BLMOVE ready ready <side>
 * <side>} moves the head onto itself, so it changes nothing but returns as soon as a
 * message arrives. Without a pool it blocks a connection of its own, opened on first use
 * and kept. From a pool it borrows a connection for each wait and gives it back at once,
 * and only with one of the pool's {@link PooledWaitShare share} for waits: a consumer
 * that finds them all taken queues for one until its wait is over.
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

	private final @Nullable Semaphore poolShare;

	private @Nullable RedisConnection connection;

	ReadyListWait(RedisConnectionFactory connectionFactory, String readyKey, QueueOrder order,
			@Nullable Semaphore poolShare) {
		this.connectionFactory = connectionFactory;
		this.ready = readyKey.getBytes(StandardCharsets.UTF_8);
		this.side = (order == QueueOrder.LIFO) ? Direction.RIGHT : Direction.LEFT;
		this.poolShare = poolShare;
	}

	/**
	 * Waits until a message arrives or the time is up.
	 * @param millis the longest wait
	 */
	void await(long millis) {
		long timeout = Math.max(MIN_BLOCK_MILLIS, millis);
		if (this.poolShare != null) {
			awaitPooled(this.poolShare, timeout);
			return;
		}
		if (this.connection == null) {
			this.connection = this.connectionFactory.getConnection();
		}
		block(this.connection, timeout);
	}

	private void awaitPooled(Semaphore share, long timeout) {
		long start = System.nanoTime();
		try {
			if (!share.tryAcquire(timeout, TimeUnit.MILLISECONDS)) {
				// the share was busy all along: the wait is over as a BLMOVE's would be
				return;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return;
		}
		try (RedisConnection borrowed = this.connectionFactory.getConnection()) {
			long left = timeout - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			block(borrowed, Math.max(MIN_BLOCK_MILLIS, left));
		}
		finally {
			share.release();
		}
	}

	private void block(RedisConnection on, long millis) {
		on.listCommands().bLMove(this.ready, this.ready, this.side, this.side, millis / 1000.0);
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
