package io.github.redkit.core.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import io.github.redkit.core.RedkitScriptException;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.NonBlocking;

import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * Runs Redkit's scripts and commands on the application's Redis connection, with string
 * keys and arguments. An error answered by Redis becomes a {@link RedkitScriptException}
 * naming the script; a connection failure or a timeout keeps its Spring type
 * ({@code RedisConnectionFailureException}, {@link QueryTimeoutException}) so that
 * callers can apply their failure policy.
 * <p>
 * With Lettuce, {@link #executeAsync} sends the script without blocking a thread, which
 * lets a caller bound the wait ({@link #execute(LuaScript, Duration, List, String...)})
 * and send scripts for several cluster slots at once. A caller that must not block (an
 * event loop, one of Redkit's own asynchronous threads) hands a script that needs a
 * connection first (the first connect, a pooled borrow) to a few threads of the runner's,
 * by default as many as the pool's {@code max-active}; a script whose caller gave up (its
 * future timed out or was cancelled) before it could be sent is not sent.
 * <p>
 * Once connected, scripts go on one connection kept open, in the order they are sent: the
 * factory's shared connection, or, from a pooling factory that shares one, a pooled
 * connection of the runner's own, kept through Lettuce's reconnects and given back only
 * by {@link #stop()} or {@link #close()} (a reset of such a factory gives its shared
 * connection back to the pool, open, where the next borrower's transaction or blocking
 * pop would hold or swallow the scripts kept on it). In an application context the runner
 * is stopped, and gives it back, after the beans that use it and before the connection
 * factory, which closes its pool when it stops, before any bean is destroyed.
 */
public class RedisScriptRunner implements SmartLifecycle {

	/**
	 * The runner's phase: it stops after the web server (graceful shutdown included) and
	 * after the beans that use it (they depend on it, so they stop first whatever their
	 * phase), and before the connection factory (phase 0 by default, which depends on
	 * nothing of the runner's and closes its pool when it stops).
	 */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			RedisScriptRunner.class.getClassLoader());

	private static final boolean NETTY_PRESENT = ClassUtils.isPresent("io.netty.util.concurrent.FastThreadLocalThread",
			RedisScriptRunner.class.getClassLoader());

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.scheduler.NonBlocking",
			RedisScriptRunner.class.getClassLoader());

	private static final boolean POOL_PRESENT = ClassUtils
		.isPresent("org.apache.commons.pool2.impl.GenericObjectPoolConfig", RedisScriptRunner.class.getClassLoader());

	/**
	 * How many threads at most hand scripts over to a connection that is not pooled or to
	 * a pool without a bound: the pool's own default {@code max-active}.
	 */
	public static final int DEFAULT_HAND_OFF_THREADS = 8;

	// set on Redkit's own asynchronous threads: what runs there must not wait for a
	// connection either, or they would grow with the calls waiting
	private static final ThreadLocal<Boolean> ASYNCHRONOUS = new ThreadLocal<>();

	private static final Log logger = LogFactory.getLog(RedisScriptRunner.class);

	private static final Executor CONNECTOR = Executors.newCachedThreadPool(asynchronousThreads("redkit-connect"));

	/**
	 * Where a non-blocking path runs the short blocking steps it cannot avoid (making a
	 * connection, giving a pooled one back, subscribing to a channel): never on the
	 * caller's thread, which may be an event loop. A script sent from one of its threads
	 * is handed off like one sent from an event loop: these threads never wait for a
	 * pooled connection.
	 * @return an executor of daemon threads, created as needed
	 */
	public static Executor blockingSteps() {
		return CONNECTOR;
	}

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

	// sends the scripts of callers that must not block: bounded, as threads beyond the
	// pool's size would only wait for it, and more of them with every call while Redis
	// does not answer
	private final ExecutorService handOff;

	private final int handOffThreads;

	private volatile @Nullable Boolean cluster;

	private volatile boolean connected;

	// the connection scripts are sent on once one was handed out: the factory's shared
	// one, or the runner's own from a pool (see keepsOwnConnection)
	private final AtomicReference<@Nullable KeptConnection> kept = new AtomicReference<>();

	// one borrow of the runner's own connection at a time: callers that arrive meanwhile
	// send on it once it is there (a lock, not a monitor: a virtual thread waiting here
	// for the pool keeps its carrier free)
	private final ReentrantLock ownConnectionLock = new ReentrantLock();

	// whether scripts with a native form are sent as that command: probed once
	// connected, and off for good once a server refuses it
	private final AtomicBoolean nativeCommands = new AtomicBoolean();

	private volatile boolean nativeCommandsAllowed = true;

	// set by close() and stop(): the runner's own connection went back to the pool, and
	// scripts that need it fail, until start()
	private volatile boolean closed;

	private volatile boolean running;

	/**
	 * Creates a runner on a connection factory, handing scripts off to as many threads as
	 * its pool's {@code max-active} ({@value #DEFAULT_HAND_OFF_THREADS} without a pool or
	 * with an unbounded one).
	 * @param connectionFactory the application's connection factory
	 */
	public RedisScriptRunner(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, defaultHandOffThreads(connectionFactory));
	}

	/**
	 * Creates a runner on a connection factory.
	 * @param connectionFactory the application's connection factory
	 * @param handOffThreads how many threads at most send the scripts of callers that
	 * must not block while a connection is made or borrowed
	 */
	public RedisScriptRunner(RedisConnectionFactory connectionFactory, int handOffThreads) {
		this(connectionFactory, checked(handOffThreads),
				RedkitThreads.bounded(asynchronousThreads("redkit-hand-off"), handOffThreads));
	}

	/**
	 * Creates a runner that hands scripts off to {@code handOff}.
	 */
	RedisScriptRunner(RedisConnectionFactory connectionFactory, int handOffThreads, ExecutorService handOff) {
		this.connectionFactory = connectionFactory;
		this.template = new StringRedisTemplate(connectionFactory);
		this.handOff = handOff;
		this.handOffThreads = handOffThreads;
	}

	private static int checked(int handOffThreads) {
		Assert.isTrue(handOffThreads > 0, () -> "handOffThreads must be > 0 (was " + handOffThreads + ")");
		return handOffThreads;
	}

	/**
	 * How many threads at most send the scripts of callers that must not block.
	 * @return the number of threads
	 */
	public int handOffThreads() {
		return this.handOffThreads;
	}

	/**
	 * How many threads a runner on a connection factory hands scripts off to by default:
	 * its pool's {@code max-active}, or {@value #DEFAULT_HAND_OFF_THREADS} without a pool
	 * or with an unbounded one.
	 * @param connectionFactory the connection factory
	 * @return the number of threads
	 */
	public static int defaultHandOffThreads(RedisConnectionFactory connectionFactory) {
		int maxActive = (LETTUCE_PRESENT && POOL_PRESENT) ? LettuceScripts.maxActive(connectionFactory) : -1;
		return (maxActive > 0) ? maxActive : DEFAULT_HAND_OFF_THREADS;
	}

	private static ThreadFactory asynchronousThreads(String name) {
		return (task) -> RedkitThreads.newThread(name, () -> {
			ASYNCHRONOUS.set(Boolean.TRUE);
			task.run();
		}, true);
	}

	/**
	 * Opens the shared connection on a background thread, so that the first call does not
	 * pay for it and start-up does not wait for Redis.
	 * @return completes when the attempt ends, connected or not
	 */
	public CompletableFuture<Void> connectInBackground() {
		return CompletableFuture.runAsync(() -> {
			try (RedisConnection connection = this.connectionFactory.getConnection()) {
				this.connected = true;
				probeNativeCommands(connection);
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
		}, CONNECTOR);
	}

	private void probeNativeCommands(RedisConnection connection) {
		if (this.nativeCommandsAllowed && LETTUCE_PRESENT) {
			Properties info = connection.serverCommands().info("server");
			this.nativeCommands.set(info != null && ServerVersions.setIfEqual(info));
		}
	}

	/**
	 * Whether scripts with a {@link NativeForm} are sent as their native command: the
	 * server (every node of a cluster) was found to take it once connected
	 * ({@link #connectInBackground()}), and has not refused it since.
	 * @return whether native commands are sent
	 */
	public boolean nativeCommands() {
		return this.nativeCommands.get();
	}

	// as if the probe had found a server that takes them: the fallback's test
	void assumeNativeCommands() {
		this.nativeCommands.set(true);
	}

	/**
	 * Turns native commands off (scripts only) or back on, for servers that take them.
	 * @param allowed whether native commands may be sent
	 */
	public void allowNativeCommands(boolean allowed) {
		this.nativeCommandsAllowed = allowed;
		if (!allowed) {
			this.nativeCommands.set(false);
		}
	}

	/**
	 * Runs a script: one round trip, bounded only by the client's command timeout.
	 * @param <T> the result type
	 * @param script the script
	 * @param keys the keys it touches (in a cluster they must share a slot)
	 * @param args its arguments
	 * @return what the script returned
	 */
	public <T> T execute(LuaScript<T> script, List<String> keys, String... args) {
		try {
			return this.template.execute(script.redisScript(), keys, (Object[]) args);
		}
		catch (RedisSystemException ex) {
			throw new RedkitScriptException(script.name(), ex);
		}
	}

	/**
	 * Runs a script and waits at most {@code timeout} for the answer.
	 * @param <T> the result type
	 * @param script the script
	 * @param timeout how long to wait
	 * @param keys the keys it touches (in a cluster they must share a slot)
	 * @param args its arguments
	 * @return what the script returned
	 * @throws QueryTimeoutException when Redis did not answer in time
	 */
	public <T> T execute(LuaScript<T> script, Duration timeout, List<String> keys, String... args) {
		return await(executeAsync(script, keys, args), timeout, script.name());
	}

	/**
	 * Runs a script with binary arguments and waits at most {@code timeout} for the
	 * answer.
	 * @param <T> the result type
	 * @param script the script
	 * @param timeout how long to wait
	 * @param keys the keys it touches (in a cluster they must share a slot)
	 * @param args its arguments, sent as they are
	 * @return what the script returned
	 * @throws QueryTimeoutException when Redis did not answer in time
	 */
	public <T> T execute(LuaScript<T> script, Duration timeout, List<String> keys, byte[][] args) {
		return await(executeAsync(script, keys, args), timeout, script.name());
	}

	/**
	 * Runs a script without blocking the calling thread, failing with a
	 * {@link QueryTimeoutException} when Redis does not answer within {@code timeout}:
	 * the same failure the blocking
	 * {@link #execute(LuaScript, Duration, List, String...)} throws.
	 * @param <T> the result type
	 * @param script the script
	 * @param timeout how long to wait
	 * @param keys the keys it touches (in a cluster they must share a slot)
	 * @param args its arguments
	 * @return what the script will return
	 */
	public <T> CompletableFuture<T> executeAsync(LuaScript<T> script, Duration timeout, List<String> keys,
			String... args) {
		return executeAsync(script, timeout, keys, encode(List.of(args)));
	}

	/**
	 * Runs a script with binary arguments without blocking the calling thread, failing
	 * with a {@link QueryTimeoutException} when Redis does not answer within
	 * {@code timeout}. The timeout is set on the sent call itself, so a call still queued
	 * for a connection to be made or borrowed when it passes is never sent; one that
	 * Lettuce holds while it reconnects is sent once reconnected, and may reach Redis
	 * after its caller got the timeout.
	 * @param <T> the result type
	 * @param script the script
	 * @param timeout how long to wait
	 * @param keys the keys it touches (in a cluster they must share a slot)
	 * @param args its arguments, sent as they are
	 * @return what the script will return
	 */
	public <T> CompletableFuture<T> executeAsync(LuaScript<T> script, Duration timeout, List<String> keys,
			byte[][] args) {
		// a timeout completes on the JDK's one timer thread: what follows a failure (a
		// release, a retry, a pooled connection's borrow) runs elsewhere, or one stuck
		// call would stop every timer of the process
		return executeAsync(script, keys, args).orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
			.exceptionallyComposeAsync((ex) -> CompletableFuture
				.failedFuture((unwrap(ex) instanceof TimeoutException) ? new QueryTimeoutException(
						"Redis did not answer " + script.name() + " within " + timeout.toMillis() + " ms", unwrap(ex))
						: unwrap(ex)),
					CONNECTOR);
	}

	/**
	 * The failure behind a {@link CompletionException}.
	 * @param ex what a future completed with
	 * @return the cause the future's stage wrapped, or {@code ex}
	 */
	public static Throwable unwrap(Throwable ex) {
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	/**
	 * Waits for an answer that bounds its own wait (a timeout of its own, a failure
	 * mode), throwing its failure as it is rather than wrapped.
	 * @param <T> the answer's type
	 * @param answer the answer
	 * @return its value
	 */
	public static <T> T join(CompletableFuture<T> answer) {
		try {
			return answer.join();
		}
		catch (CompletionException ex) {
			if (ex.getCause() instanceof RuntimeException cause) {
				throw cause;
			}
			throw ex;
		}
	}

	/**
	 * Sends a script without waiting for the answer.
	 * @param <T> the result type
	 * @param script the script
	 * @param keys the keys it touches (in a cluster they must share a slot)
	 * @param args its arguments
	 * @return the answer, completed exceptionally with a {@link DataAccessException}
	 */
	public <T> CompletableFuture<T> executeAsync(LuaScript<T> script, List<String> keys, String... args) {
		return executeAsync(script, keys, encode(List.of(args)));
	}

	/**
	 * Sends a script with binary arguments without waiting for the answer.
	 * @param <T> the result type
	 * @param script the script
	 * @param keys the keys it touches (in a cluster they must share a slot)
	 * @param args its arguments, sent as they are
	 * @return the answer, completed exceptionally with a {@link DataAccessException}
	 */
	public <T> CompletableFuture<T> executeAsync(LuaScript<T> script, List<String> keys, byte[][] args) {
		CompletableFuture<T> answer = sendOnKeptConnection(script, keys, args);
		if (answer != null) {
			return answer;
		}
		if (this.connected && !onNonBlockingThread() && !keepsOwnConnection()) {
			return send(script, keys, args, null);
		}
		// until a connection has been made, making one blocks for the connect timeout;
		// the factory hands even its shared one out under a lock that a start, a reset or
		// another caller may hold; borrowing a pooled one may wait for the pool (the
		// runner's own too, with Boot's default max-wait for ever): do it on another
		// thread, so that callers can still bound their wait and an event loop never
		// waits
		return handOff(script, keys, args);
	}

	private <T> @Nullable CompletableFuture<T> sendOnKeptConnection(LuaScript<T> script, List<String> keys,
			byte[][] args) {
		KeptConnection current = this.kept.get();
		if (current != null) {
			// the factory hands its shared connection out under a lock, which a burst of
			// callers on event loops would wait for: it is taken once and kept while open
			CompletableFuture<T> answer = LettuceScripts.executeIfOpen(current.commands(), script, encode(keys), args,
					this.nativeCommands);
			if (answer != null) {
				return answer;
			}
			// closed for good (the factory stopped, or reset a connection it does not
			// pool), not just reconnecting: the first caller to see it drops it, and
			// gives the runner's own back, off this thread (an event loop, maybe)
			if (this.kept.compareAndSet(current, null)) {
				giveBackLater(current.owner());
			}
		}
		return null;
	}

	private static void giveBackLater(@Nullable RedisConnection owner) {
		if (owner != null) {
			RedisConnection connection = owner;
			CONNECTOR.execute(() -> closeQuietly(connection));
		}
	}

	private static void closeQuietly(RedisConnection connection) {
		try {
			connection.close();
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot give back a closed connection of Redkit's own", ex);
		}
	}

	private <T> CompletableFuture<T> handOff(LuaScript<T> script, List<String> keys, byte[][] args) {
		// the caller's own future: when it times out or is cancelled, the caller gave up
		CompletableFuture<T> answer = new CompletableFuture<>();
		try {
			this.handOff.execute(() -> relay(script, keys, args, answer));
		}
		catch (RejectedExecutionException ex) {
			// shut down or refusing: an answer like any failure to send, never a throw
			// that a caller who made a slot or a record first does not expect
			answer.completeExceptionally(new RedisConnectionFailureException(
					"Redkit could not hand " + script.name() + " off to be sent: " + ex.getMessage(), ex));
		}
		return answer;
	}

	private <T> void relay(LuaScript<T> script, List<String> keys, byte[][] args, CompletableFuture<T> answer) {
		if (answer.isDone()) {
			return;
		}
		CompletableFuture<T> sent;
		try {
			sent = sendOnKeptConnection(script, keys, args);
			if (sent == null) {
				sent = send(script, keys, args, answer);
			}
		}
		catch (RuntimeException ex) {
			sent = CompletableFuture.failedFuture(ex);
		}
		if (sent == answer) {
			return;
		}
		BiConsumer<T, @Nullable Throwable> relay = (value, ex) -> {
			if (ex != null) {
				answer.completeExceptionally(unwrap(ex));
			}
			else {
				answer.complete(value);
			}
		};
		if (sent.isDone()) {
			// failed (or answered) at once: the caller's continuation runs elsewhere,
			// not on one of the hand-off's few threads
			sent.whenCompleteAsync(relay, CONNECTOR);
		}
		else {
			sent.whenComplete(relay);
		}
	}

	/**
	 * Sends a script on a connection of the factory's.
	 * @param caller the future of a caller who may give up while the connection is made
	 * or borrowed, after which the script is not sent
	 */
	private <T> CompletableFuture<T> send(LuaScript<T> script, List<String> keys, byte[][] args,
			@Nullable CompletableFuture<T> caller) {
		if (keepsOwnConnection()) {
			return sendOnOwnConnection(script, keys, args, caller);
		}
		RedisConnection connection;
		try {
			connection = this.connectionFactory.getConnection();
			this.connected = true;
		}
		catch (DataAccessException ex) {
			return CompletableFuture.failedFuture(ex);
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
			if (!LETTUCE_PRESENT || !(nativeConnection instanceof RedisScriptingAsyncCommands<?, ?>)) {
				connection.close();
				return CompletableFuture.completedFuture(executeBlocking(script, keys, args));
			}
			@SuppressWarnings("unchecked")
			RedisScriptingAsyncCommands<byte[], byte[]> commands = (RedisScriptingAsyncCommands<byte[], byte[]>) nativeConnection;
			answer = LettuceScripts.execute(commands, script, encode(keys), args, this.nativeCommands);
			if (sharesNativeConnection()) {
				this.kept.set(new KeptConnection(commands, null));
			}
		}
		catch (RuntimeException ex) {
			connection.close();
			return CompletableFuture
				.failedFuture((ex instanceof DataAccessException dataAccess) ? dataAccess : translate(script, ex));
		}
		if (sharesNativeConnection()) {
			// the handle of the factory's shared connection: closing it releases nothing
			connection.close();
			return answer;
		}
		// a dedicated (pooled) connection must not go back to the pool, and to another
		// borrower's transaction or blocking pop, with the script in flight; it goes back
		// off Lettuce's I/O thread, which a pool closing a connection could block. The
		// caller's answer does not wait for it
		answer.whenCompleteAsync((result, failure) -> connection.close(), CONNECTOR);
		return answer;
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
			return CompletableFuture
				.failedFuture((ex instanceof DataAccessException dataAccess) ? dataAccess : translate(script, ex));
		}
		if (caller != null && caller.isDone()) {
			// the caller gave up while the connection was borrowed: kept for the next
			return caller;
		}
		CompletableFuture<T> answer = sendOnKeptConnection(script, keys, args);
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
			if (current != null && !LettuceScripts.isClosed(current.commands())) {
				return;
			}
			if (current != null && this.kept.compareAndSet(current, null)) {
				giveBackLater(current.owner());
			}
			KeptConnection borrowed = LettuceScripts.borrowOwn(this.connectionFactory);
			if (this.closed) {
				// closed while the pool made the borrow wait: given back now, on this
				// thread (never an event loop), not after the factory closed its pool
				RedisConnection owner = borrowed.owner();
				if (owner != null) {
					closeQuietly(owner);
				}
				throw new RedisConnectionFailureException("Redkit's script runner was closed");
			}
			this.kept.set(borrowed);
			this.connected = true;
			// close() may have run between the check above and the set, and found
			// nothing to give back: whichever of the two takes it out gives it back
			if (this.closed && this.kept.compareAndSet(borrowed, null)) {
				RedisConnection owner = borrowed.owner();
				if (owner != null) {
					closeQuietly(owner);
				}
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
	 * would need it from then on fail. Called by {@link #stop()}, and when the
	 * application context closes.
	 */
	public void close() {
		this.closed = true;
		KeptConnection current = this.kept.getAndSet(null);
		RedisConnection owner = (current != null) ? current.owner() : null;
		if (owner != null) {
			closeQuietly(owner);
		}
	}

	/**
	 * Lets scripts borrow the runner's own pooled connection again after a
	 * {@link #stop()} (the connection factory starts again first).
	 */
	@Override
	public void start() {
		this.closed = false;
		this.running = true;
	}

	/**
	 * Gives the runner's own pooled connection back ({@link #close()}) while the
	 * connection factory's pool is still open: the factory closes it when it stops,
	 * before any bean is destroyed.
	 */
	@Override
	public void stop() {
		this.running = false;
		close();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/**
	 * Whether {@link #close()} was called.
	 * @return {@code true} once closed
	 */
	public boolean isClosed() {
		return this.closed;
	}

	/**
	 * Whether scripts go on a pooled connection of the runner's own rather than on the
	 * factory's shared one: a pooling factory borrows its shared connection from the pool
	 * and gives it back on a reset (or a failed validation), open, to the next borrower
	 * of a dedicated one, whose transaction or blocking pop would hold or swallow the
	 * scripts kept there.
	 */
	private boolean keepsOwnConnection() {
		return POOL_PRESENT && sharesNativeConnection() && LettuceScripts.pooled(this.connectionFactory);
	}

	private static boolean onNonBlockingThread() {
		Thread thread = Thread.currentThread();
		// Netty's event loops (Lettuce's, a WebFlux server's), Reactor's non-blocking
		// schedulers and Redkit's own asynchronous steps
		return (NETTY_PRESENT && thread instanceof FastThreadLocalThread)
				|| (REACTOR_PRESENT && thread instanceof NonBlocking) || ASYNCHRONOUS.get() != null;
	}

	private boolean sharesNativeConnection() {
		return LETTUCE_PRESENT && this.connectionFactory instanceof LettuceConnectionFactory lettuce
				&& lettuce.getShareNativeConnection();
	}

	@SuppressWarnings("unchecked")
	private <T> T executeBlocking(LuaScript<T> script, List<String> keys, byte[][] args) {
		RedisSerializer<T> result = (RedisSerializer<T>) (script.returnsBytes() ? RedisSerializer.byteArray()
				: RedisSerializer.string());
		try {
			return this.template.execute(script.redisScript(), BINARY_ARGUMENTS, result, keys, (Object[]) args);
		}
		catch (RedisSystemException ex) {
			throw new RedkitScriptException(script.name(), ex);
		}
	}

	/**
	 * Runs a call that gives something back (a lock, a permit, a claim) without letting
	 * an interrupt cut its wait for Redis short, then interrupts the thread again: giving
	 * back is clean-up, often in a {@code finally} of interrupted work, and an answer not
	 * waited for would leave the holder unsure whether it was given back.
	 * @param <T> the answer's type
	 * @param call the call
	 * @return its answer
	 */
	public static <T> T uninterrupted(Supplier<T> call) {
		boolean interrupted = Thread.interrupted();
		try {
			return call.get();
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Waits for an answer at most {@code timeout}, translating failures.
	 * @param <T> the result type
	 * @param answer the pending answer
	 * @param timeout how long to wait
	 * @param what what is awaited, for the timeout message
	 * @return the answer
	 * @throws DataAccessException when the call failed or timed out
	 */
	public static <T> T await(CompletableFuture<T> answer, Duration timeout, String what) {
		try {
			return answer.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			answer.cancel(false);
			throw new QueryTimeoutException("Redis did not answer " + what + " within " + timeout.toMillis() + " ms",
					ex);
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof DataAccessException dataAccess) {
				throw dataAccess;
			}
			throw new RedisSystemException("Redis call " + what + " failed", cause);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new QueryTimeoutException("Interrupted while waiting for " + what, ex);
		}
	}

	/**
	 * The template behind this runner, for plain commands.
	 * @return a template with string serializers
	 */
	public StringRedisTemplate template() {
		return this.template;
	}

	/**
	 * Whether the connection is to a Redis Cluster, where the keys of one script must
	 * share a slot.
	 * @return {@code true} for a cluster
	 */
	public boolean isCluster() {
		Boolean cluster = this.cluster;
		if (cluster == null) {
			cluster = (LETTUCE_PRESENT && this.connectionFactory instanceof LettuceConnectionFactory lettuce)
					? lettuce.isClusterAware() : isClusterConnection();
			this.cluster = cluster;
		}
		return cluster;
	}

	private boolean isClusterConnection() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return connection instanceof RedisClusterConnection;
		}
	}

	/**
	 * The connection factory behind this runner.
	 * @return the connection factory
	 */
	public RedisConnectionFactory connectionFactory() {
		return this.connectionFactory;
	}

	private static byte[][] encode(List<String> values) {
		byte[][] encoded = new byte[values.size()][];
		for (int i = 0; i < encoded.length; i++) {
			encoded[i] = values.get(i).getBytes(StandardCharsets.UTF_8);
		}
		return encoded;
	}

	static DataAccessException translate(LuaScript<?> script, Throwable failure) {
		Throwable ex = unwrap(failure);
		if (ex instanceof DataAccessException dataAccess) {
			return dataAccess;
		}
		DataAccessException translated = (LETTUCE_PRESENT && ex instanceof Exception exception)
				? new LettuceExceptionConverter().convert(exception) : null;
		if (translated == null || translated.getClass() == RedisSystemException.class) {
			return new RedkitScriptException(script.name(), ex);
		}
		return translated;
	}

	/**
	 * The Lettuce path, kept apart so that the class loads without Lettuce.
	 */
	private static final class LettuceScripts {

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
		 * connection, to keep: the way a pipeline takes one (a connection of the
		 * factory's own settings: database, credentials, client name), made to send each
		 * command at once whatever the factory's pipelining policy. Nothing gives it back
		 * but the runner, once it found it closed.
		 * @return the connection's commands and the handle that gives it back
		 */
		static KeptConnection borrowOwn(RedisConnectionFactory connectionFactory) {
			RedisConnection connection = connectionFactory.getConnection();
			try {
				connection.openPipeline();
				Object commands = connection.getNativeConnection();
				StatefulConnection<?, ?> stateful = statefulConnection(commands);
				if (stateful == null) {
					throw new IllegalStateException("Not a Lettuce connection: " + commands);
				}
				stateful.setAutoFlushCommands(true);
				return new KeptConnection(commands, connection);
			}
			catch (RuntimeException ex) {
				closeQuietly(connection);
				throw ex;
			}
		}

		/**
		 * Whether a connection is gone for good: closed, or disconnected without
		 * reconnecting. Lettuce's {@code isOpen()} is {@code false} during every
		 * reconnect too, while the commands sent on it wait to be replayed in order.
		 * @return whether scripts can no longer be sent on it
		 */
		static boolean isClosed(Object commands) {
			StatefulConnection<?, ?> connection = statefulConnection(commands);
			if (connection == null) {
				return true;
			}
			if (connection instanceof RedisChannelHandler<?, ?> handler && handler.isClosed()) {
				return true;
			}
			return !connection.isOpen() && !connection.getOptions().isAutoReconnect();
		}

		private static @Nullable StatefulConnection<?, ?> statefulConnection(Object commands) {
			return (commands instanceof RedisAsyncCommands<?, ?> standalone) ? standalone.getStatefulConnection()
					: (commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster)
							? cluster.getStatefulConnection() : null;
		}

		/**
		 * Sends a script on a kept connection, unless it was closed (the factory reset or
		 * stopped it). A connection that reconnects takes it: Lettuce sends it once
		 * reconnected, after those sent before.
		 * @return the answer, or {@code null} when the connection is closed
		 */
		@SuppressWarnings("unchecked")
		static <T> @Nullable CompletableFuture<T> executeIfOpen(Object commands, LuaScript<T> script, byte[][] keys,
				byte[][] args, AtomicBoolean nativeCommands) {
			if (isClosed(commands)) {
				return null;
			}
			CompletableFuture<T> answer;
			try {
				answer = execute((RedisScriptingAsyncCommands<byte[], byte[]>) commands, script, keys, args,
						nativeCommands);
			}
			catch (RuntimeException ex) {
				answer = CompletableFuture.failedFuture(translate(script, ex));
			}
			// closed meanwhile: Lettuce refused the script without sending it
			return (answer.isCompletedExceptionally() && isClosed(commands)) ? null : answer;
		}

		/**
		 * Sends a script, or its native form where the server takes it; a server that
		 * refuses the native form gets the script, from then on.
		 */
		@SuppressWarnings("unchecked")
		static <T> CompletableFuture<T> execute(RedisScriptingAsyncCommands<byte[], byte[]> commands,
				LuaScript<T> script, byte[][] keys, byte[][] args, AtomicBoolean nativeCommands) {
			NativeForm form = script.nativeForm();
			byte[][] values = (form != null && nativeCommands.get() && commands instanceof BaseRedisAsyncCommands<?, ?>)
					? form.arguments(keys, args) : null;
			if (form == null || values == null) {
				return execute(commands, script, keys, args);
			}
			CommandArgs<byte[], byte[]> arguments = new CommandArgs<>(ByteArrayCodec.INSTANCE);
			arguments.addKey(values[0]);
			for (int i = 1; i < values.length; i++) {
				arguments.add(values[i]);
			}
			CompletableFuture<T> result = new CompletableFuture<>();
			((BaseRedisAsyncCommands<byte[], byte[]>) commands)
				.dispatch(CommandType.valueOf(form.command()), new StatusOutput<>(ByteArrayCodec.INSTANCE), arguments)
				.whenComplete((reply, ex) -> {
					Object decided = (ex == null) ? form.result(reply) : null;
					if (decided != null) {
						result.complete((T) decided);
					}
					else if (ex == null || isRefusal(ex)) {
						if (ex != null && nativeCommands.compareAndSet(true, false)) {
							logger.info("Redis refused " + form.command() + " in place of " + script.name() + " ("
									+ unwrap(ex).getMessage() + "): scripts only from now on");
						}
						execute(commands, script, keys, args).whenComplete((value, failure) -> {
							if (failure != null) {
								result.completeExceptionally(failure);
							}
							else {
								result.complete(value);
							}
						});
					}
					else {
						result.completeExceptionally(translate(script, ex));
					}
				});
			return result;
		}

		// a server without the command's form answers a syntax error or an unknown
		// command, which the script never meets
		private static boolean isRefusal(Throwable ex) {
			String message = unwrap(ex).getMessage();
			return message != null && (message.contains("syntax error") || message.startsWith("ERR unknown"));
		}

		@SuppressWarnings("unchecked")
		static <T> CompletableFuture<T> execute(RedisScriptingAsyncCommands<byte[], byte[]> commands,
				LuaScript<T> script, byte[][] keys, byte[][] args) {
			CompletableFuture<Object> reply = commands.<Object>evalsha(script.sha1(), script.outputType(), keys, args)
				.toCompletableFuture()
				.exceptionallyCompose((ex) -> isNoScript(ex)
						? commands.<Object>eval(script.source(), script.outputType(), keys, args).toCompletableFuture()
						: CompletableFuture.failedFuture(ex));
			CompletableFuture<T> result = new CompletableFuture<>();
			reply.whenComplete((value, ex) -> {
				if (ex != null) {
					result.completeExceptionally(translate(script, ex));
				}
				else {
					result.complete(script.returnsBytes() ? (T) value : convert(value));
				}
			});
			return result;
		}

		private static boolean isNoScript(Throwable ex) {
			Throwable cause = unwrap(ex);
			return cause instanceof RedisNoScriptException
					|| (cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT"));
		}

		@SuppressWarnings("unchecked")
		private static <T> T convert(Object value) {
			if (value instanceof byte[] bytes) {
				return (T) new String(bytes, StandardCharsets.UTF_8);
			}
			if (value instanceof List<?> list) {
				List<Object> converted = new ArrayList<>(list.size());
				for (Object item : list) {
					converted.add(convert(item));
				}
				return (T) converted;
			}
			return (T) value;
		}

	}

	/**
	 * A connection scripts are sent on while it is open.
	 *
	 * @param commands its Lettuce asynchronous commands
	 * @param owner the handle that gives it back to its pool, for the runner's own;
	 * {@code null} for the factory's shared connection, which the factory owns
	 */
	private record KeptConnection(Object commands, @Nullable RedisConnection owner) {
	}

}
