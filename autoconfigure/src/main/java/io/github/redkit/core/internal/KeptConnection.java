package io.github.redkit.core.internal;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * A connection scripts are sent on while it is open.
 *
 * @param commands its Lettuce asynchronous commands
 * @param connection the Lettuce connection behind them, read once: every script sent on
 * it asks whether it is open, and a script that drops its re-sends is dispatched on it;
 * {@code null} for commands of an unknown kind, never kept open
 * @param owner the handle that gives it back to its pool, for the runner's own;
 * {@code null} for the factory's shared connection, which the factory owns
 */
record KeptConnection(Object commands, @Nullable Object connection, @Nullable RedisConnection owner) {

	// logged under the name of the runner: the category applications already configure
	private static final Log logger = LogFactory.getLog(RedisScriptRunner.class);

	/**
	 * Gives the own connection of the runner back to its pool, on this thread; nothing
	 * for the shared connection of the factory.
	 */
	void giveBack() {
		RedisConnection connection = this.owner;
		if (connection != null) {
			closeQuietly(connection);
		}
	}

	static void closeQuietly(RedisConnection connection) {
		try {
			connection.close();
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot give back a closed connection of Redkit's own", ex);
		}
	}

}
