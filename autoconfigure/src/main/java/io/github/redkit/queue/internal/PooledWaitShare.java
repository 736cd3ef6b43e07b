package io.github.redkit.queue.internal;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.Semaphore;

import io.github.redkit.core.internal.RedisScriptRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The connections of a pooled connection factory that its queue consumers may hold in
 * blocking waits, all containers and threads together: a quarter of the pool's
 * {@code max-active}. A waiting consumer holds its connection for up to the poll timeout;
 * were there no bound, as many consumers as the pool has connections would leave every
 * other borrower (the consumers' own takes and acknowledgements, sends, the application's
 * calls) waiting for ever.
 */
final class PooledWaitShare {

	/**
	 * The part of a pool's connections consumers may block: one in four.
	 */
	static final int POOL_DIVISOR = 4;

	private static final Log logger = LogFactory.getLog(PooledWaitShare.class);

	// one share per pool, however many container factories wait on it
	private static final Map<RedisConnectionFactory, Semaphore> SHARES = Collections
		.synchronizedMap(new WeakHashMap<>());

	private PooledWaitShare() {
	}

	/**
	 * The share of a connection factory's pool.
	 * @param connectionFactory the connection factory the consumers wait on
	 * @return permits to hold while waiting, one per connection, or {@code null} when the
	 * factory has no pool (each waiting consumer then keeps a connection of its own) or
	 * an unbounded one
	 */
	static @Nullable Semaphore of(RedisConnectionFactory connectionFactory) {
		int maxActive = RedisScriptRunner.poolMaxActive(connectionFactory);
		if (maxActive < 0) {
			return null;
		}
		return SHARES.computeIfAbsent(connectionFactory, (factory) -> {
			int permits = maxActive / POOL_DIVISOR;
			if (permits == 0) {
				logger.info("Queue consumers do not wait on Redis for messages: the connection pool's max-active ("
						+ maxActive + ") is below " + POOL_DIVISOR + "; an idle consumer takes again after"
						+ " redkit.queue.poll-timeout, or sooner when a delayed or expired message falls due");
			}
			else {
				logger.info("Queue consumers hold at most " + permits + " of the connection pool's " + maxActive
						+ " connections in blocking waits (BLMOVE); other idle consumers queue for one of those");
			}
			// fair: the consumers take turns, none waits out every turn
			return new Semaphore(permits, true);
		});
	}

}
