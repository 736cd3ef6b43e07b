package io.github.redkit.queue.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.internal.RedisScriptRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The connections of a pooled connection factory that its queue consumers hold in
 * blocking waits, all containers and threads together: a quarter of the pool's
 * {@code max-active}. Were there no bound, as many idle consumers as the pool has
 * connections would leave every other borrower (the consumers' own takes and
 * acknowledgements, sends, the application's calls) waiting for ever. Each of them is
 * borrowed once, when a wait first needs it, and kept: a waiting consumer takes one
 * ({@link WaitConnection}) and hands it to the next when its wait is over, so that an
 * application that later holds every other connection of the pool cannot stop a consumer.
 * They go back to the pool when the last consumer stops.
 */
final class PooledWaitShare {

	/**
	 * The part of a pool's connections consumers may block: one in four.
	 */
	static final int POOL_DIVISOR = 4;

	private static final Log logger = LogFactory.getLog(PooledWaitShare.class);

	// one share per pool, however many container factories wait on it; the share holds
	// no reference to its factory, which would keep the weak key alive
	private static final Map<RedisConnectionFactory, PooledWaitShare> SHARES = Collections
		.synchronizedMap(new WeakHashMap<>());

	// fair: the consumers take turns, none waits out every turn
	private final Semaphore permits;

	// one per permit; those with a connection first
	private final Deque<WaitConnection> free = new ConcurrentLinkedDeque<>();

	private final List<WaitConnection> all = new ArrayList<>();

	private int users;

	private PooledWaitShare(int size) {
		this.permits = new Semaphore(size, true);
		for (int i = 0; i < size; i++) {
			WaitConnection connection = new WaitConnection(this);
			this.all.add(connection);
			this.free.add(connection);
		}
	}

	/**
	 * The share of a connection factory's pool.
	 * @param connectionFactory the connection factory the consumers wait on
	 * @return the share, or {@code null} when the factory has no pool (each waiting
	 * consumer then keeps a connection of its own) or an unbounded one
	 */
	static @Nullable PooledWaitShare of(RedisConnectionFactory connectionFactory) {
		int maxActive = RedisScriptRunner.poolMaxActive(connectionFactory);
		if (maxActive < 0) {
			return null;
		}
		return SHARES.computeIfAbsent(connectionFactory, (factory) -> {
			int size = maxActive / POOL_DIVISOR;
			if (size == 0) {
				logger.info("Queue consumers do not wait on Redis for messages: the connection pool's max-active ("
						+ maxActive + ") is below " + POOL_DIVISOR + "; an idle consumer takes again after"
						+ " redkit.queue.poll-timeout, or sooner when a delayed or expired message falls due");
			}
			else {
				logger.info("Queue consumers keep at most " + size + " of the connection pool's " + maxActive
						+ " connections for their blocking waits (BLMOVE), handed from one idle consumer to the next;"
						+ " other idle consumers queue for one of those");
			}
			return new PooledWaitShare(size);
		});
	}

	/**
	 * A consumer starts waiting on this share.
	 */
	synchronized void join() {
		this.users++;
	}

	/**
	 * A consumer stopped waiting on this share: after the last one, the kept connections
	 * go back to the pool and the borrows still under way are called off.
	 */
	void leave() {
		List<RedisConnection> kept = new ArrayList<>();
		synchronized (this) {
			if (--this.users > 0) {
				return;
			}
			this.all.forEach((connection) -> connection.giveBack(kept));
		}
		kept.forEach(WaitConnection::closeQuietly);
	}

	synchronized boolean inUse() {
		return this.users > 0;
	}

	/**
	 * Takes a connection of the share for one wait, queueing for one when all are taken.
	 * @param millis how long to queue at most
	 * @return the connection, to {@link WaitConnection#handOn() hand on} after the wait,
	 * or {@code null} when none was free in time
	 */
	@Nullable WaitConnection take(long millis) {
		try {
			if (!this.permits.tryAcquire(millis, TimeUnit.MILLISECONDS)) {
				return null;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
		WaitConnection connection = this.free.pollFirst();
		if (connection == null) {
			// cannot happen: one per permit
			this.permits.release();
			return null;
		}
		return connection;
	}

	void handOn(WaitConnection connection, boolean kept) {
		if (kept) {
			this.free.addFirst(connection);
		}
		else {
			this.free.addLast(connection);
		}
		this.permits.release();
	}

}
