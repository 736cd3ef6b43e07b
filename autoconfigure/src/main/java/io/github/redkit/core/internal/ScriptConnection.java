package io.github.redkit.core.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.util.ClassUtils;

/**
 * The connection the script runner sends on: once one was handed out, the factory's
 * shared connection, or, from a pooling factory that shares one, a pooled connection of
 * the runner's own, kept through Lettuce's reconnects and given back only by
 * {@link #close()}; until then, and for other drivers, a connection of the factory's per
 * script. Its blocking steps (a connect, a borrow) run on the caller's thread: the runner
 * hands every script that needs one off first, the factory's shared connection included
 * (made again, under the factory's lock, after a reset).
 */
final class ScriptConnection {

	static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			ScriptConnection.class.getClassLoader());

	static final boolean POOL_PRESENT = ClassUtils.isPresent("org.apache.commons.pool2.impl.GenericObjectPoolConfig",
			ScriptConnection.class.getClassLoader());

	// the runner's name: the category applications already configure
	private static final Log logger = LogFactory.getLog(RedisScriptRunner.class);

	// keys are strings, arguments bytes, both sent as they are
	private static final RedisSerializer<Object> BINARY_ARGUMENTS = new RedisSerializer<>() {

		@Override
		public byte[] serialize(@Nullable Object value) {
			if (value == null) {
				return new byte[0];
			}
			return (value instanceof byte[] bytes) ? bytes : value.toString().getBytes(StandardCharsets.UTF_8);
		}

		@Override
		public @Nullable Object deserialize(byte @Nullable [] bytes) {
			return bytes;
		}

	};

	private final RedisConnectionFactory connectionFactory;

	private final StringRedisTemplate template;

	// which scripts with a native form are sent as their command (the runner's)
	private final NativeCommands nativeCommands;

	// the connection scripts are sent on once one was handed out: the factory's shared
	// one, or the runner's own from a pool (see keepsOwnConnection)
	private final AtomicReference<@Nullable KeptConnection> kept = new AtomicReference<>();

	// one borrow of the runner's own connection at a time: callers that arrive meanwhile
	// send on it once it is there (a lock, not a monitor: a virtual thread waiting here
	// for the pool keeps its carrier free)
	private final ReentrantLock ownConnectionLock = new ReentrantLock();

	// set by close(): the runner's own connection went back to the pool, and scripts that
	// need it fail, until reopen()
	private volatile boolean closed;

	ScriptConnection(RedisConnectionFactory connectionFactory, StringRedisTemplate template,
			NativeCommands nativeCommands) {
		this.connectionFactory = connectionFactory;
		this.template = template;
		this.nativeCommands = nativeCommands;
	}

	/**
	 * Opens the shared connection, then borrows the runner's own where it keeps one.
	 * @param connected what to ask of the server once connected
	 */
	void connect(Consumer<RedisConnection> connected) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connected.accept(connection);
		}
		catch (RuntimeException ex) {
			// the first call will try again and apply its own failure policy
			return;
		}
		if (keepsOwnConnection()) {
			// borrowed before the application's consumers hold the pool's connections
			try {
				keepOwnConnection();
			}
			catch (RuntimeException ex) {
				logger.debug("Cannot borrow Redkit's own pooled connection yet; the first script will", ex);
			}
		}
	}

	/**
	 * Sends a script on the kept connection, at once and without blocking.
	 * @return the answer, or {@code null} when no connection is kept open
	 */
	<T> @Nullable CompletableFuture<T> sendIfKept(LuaScript<T> script, List<String> keys, byte[][] args) {
		return (this.kept.get() != null) ? sendIfKept(script, encode(keys), args) : null;
	}

	/**
	 * Sends a script whose keys are encoded already on the kept connection, as
	 * {@link #sendIfKept(LuaScript, List, byte[][])} does.
	 * @param keys the keys, encoded as UTF-8
	 */
	<T> @Nullable CompletableFuture<T> sendIfKept(LuaScript<T> script, byte[][] keys, byte[][] args) {
		KeptConnection current = this.kept.get();
		if (current != null) {
			// the factory hands its shared connection out under a lock, which a burst of
			// callers on event loops would wait for: it is taken once and kept while open
			CompletableFuture<T> answer = ScriptCalls.executeIfOpen(current, script, keys, args, this.nativeCommands);
			if (answer != null) {
				return answer;
			}
			// closed for good (the factory stopped, or reset a connection it does not
			// pool), not just reconnecting: the first caller to see it drops it, and
			// gives the runner's own back, off this thread (an event loop, maybe)
			if (this.kept.compareAndSet(current, null)) {
				giveBackLater(current);
			}
		}
		return null;
	}

	/**
	 * Sends a script on the kept connection, or on one made or borrowed first, which may
	 * block.
	 * @param caller the future of a caller who may give up while the connection is made
	 * or borrowed, after which the script is not sent and that future is returned
	 */
	<T> CompletableFuture<T> sendWaiting(LuaScript<T> script, List<String> keys, byte[][] args,
			CompletableFuture<T> caller) {
		CompletableFuture<T> sent = sendIfKept(script, keys, args);
		return (sent != null) ? sent : send(script, keys, args, caller);
	}

	private static void giveBackLater(KeptConnection connection) {
		if (connection.owner() != null) {
			BlockingHandOff.blockingSteps().execute(connection::giveBack);
		}
	}

	/**
	 * Sends a script on a connection of the factory's.
	 * @param caller the future of a caller who may give up while the connection is made
	 * or borrowed, after which the script is not sent
	 */
	<T> CompletableFuture<T> send(LuaScript<T> script, List<String> keys, byte[][] args,
			@Nullable CompletableFuture<T> caller) {
		if (keepsOwnConnection()) {
			return sendOnOwnConnection(script, keys, args, caller);
		}
		RedisConnection connection;
		try {
			connection = this.connectionFactory.getConnection();
		}
		catch (DataAccessException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		catch (RuntimeException ex) {
			// a factory stopped or destroyed (an IllegalStateException): Redis cannot be
			// reached, which callers meet with their failure mode
			return CompletableFuture.failedFuture(new RedisConnectionFailureException(
					"Redkit could not get a connection for " + script.name() + ": " + ex.getMessage(), ex));
		}
		CompletableFuture<T> answer;
		try {
			// a pooled connection is borrowed here, and may have waited for the pool
			Object nativeConnection = connection.getNativeConnection();
			if (caller != null && caller.isDone()) {
				// the caller gave up meanwhile: the connection goes back unused
				connection.close();
				return caller;
			}
			if (!LETTUCE_PRESENT || !LettuceConnections.scripts(nativeConnection)) {
				connection.close();
				return CompletableFuture.completedFuture(executeBlocking(script, keys, args));
			}
			answer = ScriptCalls.execute(nativeConnection, script, encode(keys), args, this.nativeCommands);
			if (sharesNativeConnection()) {
				this.kept.set(LettuceConnections.shared(nativeConnection));
			}
		}
		catch (RuntimeException ex) {
			connection.close();
			return CompletableFuture.failedFuture(
					(ex instanceof DataAccessException dataAccess) ? dataAccess : ScriptFailures.translate(script, ex));
		}
		catch (Error ex) {
			// the borrowed connection goes back to the pool whatever went wrong
			connection.close();
			throw ex;
		}
		if (sharesNativeConnection()) {
			// the handle of the factory's shared connection: closing it releases nothing
			connection.close();
			return answer;
		}
		// a dedicated (pooled) connection must not go back to the pool, and to another
		// borrower's transaction or blocking pop, with the script in flight (an EVAL sent
		// after a late NOSCRIPT would join them): it goes back once the command itself
		// completed, not when its caller gave up, whose timeout or cancel completes only
		// the caller's copy. It goes back off Lettuce's I/O thread, which a pool closing
		// a connection could block, and the caller's answer does not wait for it
		answer.whenCompleteAsync((result, failure) -> connection.close(), BlockingHandOff.blockingSteps());
		CompletableFuture<T> copy = answer.copy();
		// a caller who cancels its copy still gives the script up: a take is not sent
		// again after NOSCRIPT on this connection either (ScriptCalls)
		CompletableFuture<T> command = answer;
		copy.whenComplete((result, failure) -> {
			if (copy.isCancelled()) {
				ScriptCalls.giveUp(command);
			}
		});
		return copy;
	}

	/**
	 * Sends a script on the runner's own pooled connection, borrowing it first when there
	 * is none (or it was closed).
	 * @param caller the future of a caller who may give up while the connection is
	 * borrowed, after which the script is not sent
	 */
	private <T> CompletableFuture<T> sendOnOwnConnection(LuaScript<T> script, List<String> keys, byte[][] args,
			@Nullable CompletableFuture<T> caller) {
		try {
			keepOwnConnection();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(
					(ex instanceof DataAccessException dataAccess) ? dataAccess : ScriptFailures.translate(script, ex));
		}
		if (caller != null && caller.isDone()) {
			// the caller gave up while the connection was borrowed: kept for the next
			return caller;
		}
		CompletableFuture<T> answer = sendIfKept(script, keys, args);
		return (answer != null) ? answer : CompletableFuture.failedFuture(new RedisConnectionFailureException(
				"The connection Redkit borrowed for " + script.name() + " closed at once"));
	}

	/**
	 * Borrows the runner's own pooled connection, unless it keeps one open already.
	 */
	private void keepOwnConnection() {
		this.ownConnectionLock.lock();
		try {
			if (this.closed) {
				throw new RedisConnectionFailureException("Redkit's script runner was closed");
			}
			KeptConnection current = this.kept.get();
			// a connection that reconnects is kept: the scripts sent on it wait for it,
			// in order
			if (current != null && !LettuceConnections.isClosed(current.commands())) {
				return;
			}
			if (current != null && this.kept.compareAndSet(current, null)) {
				giveBackLater(current);
			}
			KeptConnection borrowed = LettuceConnections.borrowOwn(this.connectionFactory);
			if (this.closed) {
				// closed while the pool made the borrow wait: given back now, on this
				// thread (never an event loop), not after the factory closed its pool
				borrowed.giveBack();
				throw new RedisConnectionFailureException("Redkit's script runner was closed");
			}
			this.kept.set(borrowed);
			// close() may have run between the check above and the set, and found
			// nothing to give back: whichever of the two takes it out gives it back
			if (this.closed && this.kept.compareAndSet(borrowed, null)) {
				borrowed.giveBack();
				throw new RedisConnectionFailureException("Redkit's script runner was closed");
			}
		}
		finally {
			this.ownConnectionLock.unlock();
		}
	}

	/**
	 * Gives the runner's own pooled connection back to the pool, before the factory
	 * closes the pool (which would warn about a connection never released); scripts that
	 * would need it from then on fail, until {@link #reopen()}.
	 */
	void close() {
		this.closed = true;
		KeptConnection current = this.kept.getAndSet(null);
		if (current != null) {
			current.giveBack();
		}
	}

	/**
	 * Lets scripts borrow the runner's own pooled connection again after a
	 * {@link #close()}.
	 */
	void reopen() {
		this.closed = false;
	}

	boolean isClosed() {
		return this.closed;
	}

	/**
	 * Whether scripts go on a pooled connection of the runner's own rather than on the
	 * factory's shared one: a pooling factory borrows its shared connection from the pool
	 * and gives it back on a reset (or a failed validation), open, to the next borrower
	 * of a dedicated one, whose transaction or blocking pop would hold or swallow the
	 * scripts kept there.
	 */
	boolean keepsOwnConnection() {
		return POOL_PRESENT && sharesNativeConnection() && LettuceConnections.pooled(this.connectionFactory);
	}

	private boolean sharesNativeConnection() {
		return LETTUCE_PRESENT && this.connectionFactory instanceof LettuceConnectionFactory lettuce
				&& lettuce.getShareNativeConnection();
	}

	// the path for drivers other than Lettuce
	@SuppressWarnings("unchecked")
	private <T> T executeBlocking(LuaScript<T> script, List<String> keys, byte[][] args) {
		RedisSerializer<T> result = (RedisSerializer<T>) (script.returnsBytes() ? RedisSerializer.byteArray()
				: RedisSerializer.string());
		try {
			return this.template.execute(script.redisScript(), BINARY_ARGUMENTS, result, keys, (Object[]) args);
		}
		catch (RedisSystemException ex) {
			throw ScriptFailures.answered(script, ex);
		}
	}

	/**
	 * The keys of {@link #encode(List)} as strings again.
	 * @param values the encoded values
	 * @return the strings
	 */
	static List<String> decode(byte[][] values) {
		List<String> decoded = new ArrayList<>(values.length);
		for (byte[] value : values) {
			decoded.add(new String(value, StandardCharsets.UTF_8));
		}
		return decoded;
	}

	static byte[][] encode(List<String> values) {
		byte[][] encoded = new byte[values.size()][];
		for (int i = 0; i < encoded.length; i++) {
			encoded[i] = values.get(i).getBytes(StandardCharsets.UTF_8);
		}
		return encoded;
	}

	/**
	 * A connection scripts are sent on while it is open.
	 *
	 * @param commands its Lettuce asynchronous commands
	 * @param connection the Lettuce connection behind them, read once: every script sent
	 * on it asks whether it is open, and a script that drops its re-sends is dispatched
	 * on it; {@code null} for commands of an unknown kind, never kept open
	 * @param owner the handle that gives it back to its pool, for the runner's own;
	 * {@code null} for the factory's shared connection, which the factory owns
	 */
	record KeptConnection(Object commands, @Nullable Object connection, @Nullable RedisConnection owner) {

		/**
		 * Gives the own connection of the runner back to its pool, on this thread;
		 * nothing for the shared connection of the factory.
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

}
