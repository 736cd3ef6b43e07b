package io.github.redkit.queue.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.redkit.queue.QueueOrder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisListCommands.Direction;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.StreamInfo.XInfoGroup;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;

/**
 * The wait of one consumer thread on an empty queue: {@code BLMOVE ready ready <side>
 * <side>} moves the head onto itself, so it changes nothing but returns as soon as a
 * message arrives ({@code XREAD BLOCK} on a stream queue's stream). Without a pool it
 * blocks a connection of its own, opened on first use and kept. From a pool it waits on
 * one of the connections of the pool's {@link PooledWaitShare share} for waits, kept by
 * the share and handed from one waiting consumer to the next: a consumer that finds them
 * all taken, or the pool without one to lend, waits no longer than its wait would have
 * lasted.
 */
final class ReadyListWait implements AutoCloseable {

	/**
	 * Redis 6.2 reads a timeout of 0.001 s as 0, which blocks forever.
	 */
	private static final long MIN_BLOCK_MILLIS = 10;

	private static final Log logger = LogFactory.getLog(ReadyListWait.class);

	private final RedisConnectionFactory connectionFactory;

	private final Block block;

	private final @Nullable PooledWaitShare poolShare;

	private boolean sharing;

	private @Nullable RedisConnection connection;

	ReadyListWait(RedisConnectionFactory connectionFactory, String readyKey, QueueOrder order,
			@Nullable PooledWaitShare poolShare) {
		this(connectionFactory, onList(readyKey, order), poolShare);
	}

	private ReadyListWait(RedisConnectionFactory connectionFactory, Block block, @Nullable PooledWaitShare poolShare) {
		this.connectionFactory = connectionFactory;
		this.block = block;
		this.poolShare = poolShare;
	}

	/**
	 * The wait of a consumer of a stream queue: {@code XREAD BLOCK} from the last entry
	 * its group delivered (read just before, so that an entry added since the take ends
	 * the wait at once); it reads, but takes nothing.
	 */
	static ReadyListWait onStream(RedisConnectionFactory connectionFactory, String streamKey, String groupName,
			@Nullable PooledWaitShare poolShare) {
		byte[] stream = streamKey.getBytes(StandardCharsets.UTF_8);
		return new ReadyListWait(connectionFactory, (on, millis) -> {
			String from = "0-0";
			try {
				for (XInfoGroup group : on.streamCommands().xInfoGroups(stream)) {
					if (groupName.equals(group.groupName())) {
						from = group.lastDeliveredId();
					}
				}
			}
			catch (DataAccessException ex) {
				// no stream yet: wait for its first entry
			}
			on.streamCommands()
				.xRead(StreamReadOptions.empty().count(1).block(Duration.ofMillis(millis)),
						StreamOffset.create(stream, ReadOffset.from(from)));
		}, poolShare);
	}

	private static Block onList(String readyKey, QueueOrder order) {
		byte[] ready = readyKey.getBytes(StandardCharsets.UTF_8);
		Direction side = (order == QueueOrder.LIFO) ? Direction.RIGHT : Direction.LEFT;
		return (on, millis) -> on.listCommands().bLMove(ready, ready, side, side, millis / 1000.0);
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
		this.block.block(on, millis);
	}

	/**
	 * One blocking wait on a connection.
	 */
	@FunctionalInterface
	private interface Block {

		void block(RedisConnection on, long millis);

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
