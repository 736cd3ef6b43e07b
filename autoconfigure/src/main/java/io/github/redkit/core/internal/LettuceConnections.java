package io.github.redkit.core.internal;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

/**
 * What the script runner asks of a Lettuce connection factory and its connections: its
 * pool, a connection of the runner's own, whether a kept connection is closed for good.
 * Kept apart so that the runner loads without Lettuce.
 */
final class LettuceConnections {

	private LettuceConnections() {
	}

	/**
	 * The {@code max-active} of a Lettuce factory's pool.
	 * @return the pool's size, or {@code -1} without a pool
	 */
	static int maxActive(RedisConnectionFactory connectionFactory) {
		return (connectionFactory instanceof LettuceConnectionFactory lettuce
				&& lettuce.getClientConfiguration() instanceof LettucePoolingClientConfiguration pooling)
						? pooling.getPoolConfig().getMaxTotal() : -1;
	}

	/**
	 * Whether a Lettuce factory pools its connections (its shared one included).
	 * @return whether it has a pool
	 */
	static boolean pooled(RedisConnectionFactory connectionFactory) {
		return connectionFactory instanceof LettuceConnectionFactory lettuce
				&& lettuce.getClientConfiguration() instanceof LettucePoolingClientConfiguration;
	}

	/**
	 * Borrows a dedicated connection from a pooling factory that shares its native
	 * connection, to keep: the way a pipeline takes one (a connection of the factory's
	 * own settings: database, credentials, client name), made to send each command at
	 * once whatever the factory's pipelining policy. Nothing gives it back but the
	 * runner, once it found it closed.
	 * @return the connection's commands and the handle that gives it back
	 */
	static ScriptConnection.KeptConnection borrowOwn(RedisConnectionFactory connectionFactory) {
		RedisConnection connection = connectionFactory.getConnection();
		try {
			connection.openPipeline();
			Object commands = connection.getNativeConnection();
			StatefulConnection<?, ?> stateful = statefulConnection(commands);
			if (stateful == null) {
				throw new IllegalStateException("Not a Lettuce connection: " + commands);
			}
			stateful.setAutoFlushCommands(true);
			return new ScriptConnection.KeptConnection(commands, stateful, connection);
		}
		catch (RuntimeException ex) {
			ScriptConnection.KeptConnection.closeQuietly(connection);
			throw ex;
		}
	}

	/**
	 * Whether a connection is gone for good: closed, or disconnected without
	 * reconnecting. Lettuce's {@code isOpen()} is {@code false} during every reconnect
	 * too, while the commands sent on it wait to be replayed in order.
	 * @return whether scripts can no longer be sent on it
	 */
	static boolean isClosed(Object commands) {
		return ScriptCalls.isClosed(statefulConnection(commands));
	}

	/**
	 * The connection behind a Lettuce connection's asynchronous commands.
	 * @return the connection, {@code null} for commands of an unknown kind
	 */
	@SuppressWarnings("unchecked")
	static <K, V> @Nullable StatefulConnection<K, V> statefulConnection(Object commands) {
		return (commands instanceof RedisAsyncCommands<?, ?> standalone)
				? (StatefulConnection<K, V>) standalone.getStatefulConnection()
				: (commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster)
						? (StatefulConnection<K, V>) cluster.getStatefulConnection() : null;
	}

	/**
	 * Whether a connection the factory handed out is Lettuce's, with scripting commands.
	 */
	static boolean scripts(Object nativeConnection) {
		return nativeConnection instanceof RedisScriptingAsyncCommands<?, ?>;
	}

	/**
	 * The factory's shared connection, to keep.
	 * @param commands its asynchronous commands, Lettuce's
	 * @return the connection kept, which nothing gives back
	 */
	static ScriptConnection.KeptConnection shared(Object commands) {
		return new ScriptConnection.KeptConnection(commands, statefulConnection(commands), null);
	}

}
