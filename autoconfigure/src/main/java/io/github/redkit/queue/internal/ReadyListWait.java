package io.github.redkit.queue.internal;

import java.nio.charset.StandardCharsets;
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
 * and kept. From a pool it waits on one of the connections of the pool's
 * {@link PooledWaitShare share} for waits, kept by the share and handed from one waiting
 * consumer to the next: a consumer that finds them all taken, or the pool without one to
 * lend, waits no longer than its wait would have lasted.
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

	private final @Nullable PooledWaitShare poolShare;

	private boolean sharing;

	private @Nullable RedisConnection connection;

	ReadyListWait(RedisConnectionFactory connectionFactory, String readyKey, QueueOrder order,
			@Nullable PooledWaitShare poolShare) {
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

	private void awaitPooled(PooledWaitShare share, long timeout) {
		if (!this.sharing) {
			share.join();
			this.sharing = true;
		}
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeout);
		WaitConnection taken = share.take(timeout);
		if (taken == null) {
			// the share was busy all along: the wait is over as a BLMOVE's would be
			return;
		}
		try {
			RedisConnection on = taken.connection(this.connectionFactory, millisLeft(deadline));
			if (on == null) {
				// the pool lent none in time: the wait is over, the borrow goes on
				return;
			}
			try {
				block(on, Math.max(MIN_BLOCK_MILLIS, millisLeft(deadline)));
			}
			catch (RuntimeException ex) {
				taken.discard();
				throw ex;
			}
		}
		finally {
			taken.handOn();
		}
	}

	private static long millisLeft(long deadline) {
		return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
	}

	private void block(RedisConnection on, long millis) {
		on.listCommands().bLMove(this.ready, this.ready, this.side, this.side, millis / 1000.0);
	}

	@Override
	public void close() {
		if (this.sharing && this.poolShare != null) {
			this.sharing = false;
			this.poolShare.leave();
		}
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
