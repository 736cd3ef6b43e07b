package io.github.redkit.core.internal;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.github.redkit.core.RedkitScriptException;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

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
 * by default as many as the pool's {@code max-active}; so does every caller when the
 * factory does not share its native connection (a connection borrowed or made per
 * script), or before the shared one is kept (the first script, and after a reset or a
 * stop closed it), so that a blocking caller's timeout bounds that wait too; at most
 * {@link #HAND_OFF_WAITING_PER_THREAD} scripts per thread wait, beyond which one fails at
 * once. A script whose caller gave up (its future timed out or was cancelled) before it
 * could be sent is not sent ({@link BlockingHandOff}), save a
 * {@linkplain LuaScript#givingBack() give-back}, sent once a connection frees within the
 * command timeout, and one {@linkplain LuaScript#givenUpWithItsCaller() given up with its
 * caller} (a take) whose caller cancelled it (as {@link #await} does on its timeout or an
 * interrupt) is not sent again as {@code EVAL} after a {@code NOSCRIPT} answer, on the
 * shared connection, the runner's own or one made or borrowed for it.
 * <p>
 * Once connected, scripts go on one connection kept open, in the order they are sent: the
 * factory's shared connection, or, from a pooling factory that shares one, a pooled
 * connection of the runner's own, kept through Lettuce's reconnects and given back only
 * by {@link #stop()} or {@link #close()} (a reset of such a factory gives its shared
 * connection back to the pool, open, where the next borrower's transaction or blocking
 * pop would hold or swallow the scripts kept on it). In an application context the runner
 * is stopped, and gives it back, after the beans that use it and before the connection
 * factory, which closes its pool when it stops, before any bean is destroyed
 * ({@link ScriptConnection}; {@link ScriptCalls} sends one script on Lettuce).
 */
public class RedisScriptRunner implements SmartLifecycle {

	/**
	 * The runner's phase: it stops after the web server (graceful shutdown included) and
	 * after the beans that use it (they depend on it, so they stop first whatever their
	 * phase), and before the connection factory (phase 0 by default, which depends on
	 * nothing of the runner's and closes its pool when it stops).
	 */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	/**
	 * How many threads at most hand scripts over to a connection that is not pooled or to
	 * a pool without a bound: the pool's own default {@code max-active}.
	 */
	public static final int DEFAULT_HAND_OFF_THREADS = 8;

	/**
	 * How many scripts at most wait for each thread of the hand-off: beyond them (Redis
	 * frozen, every thread waiting for a connection) a script fails at once with a
	 * {@code RedisConnectionFailureException}, which its caller meets with its failure
	 * mode; a give-back ({@link LuaScript#givingBack()}) is handed off still.
	 */
	public static final int HAND_OFF_WAITING_PER_THREAD = 1024;

	/**
	 * Where a non-blocking path runs the short blocking steps it cannot avoid (making a
	 * connection, giving a pooled one back, subscribing to a channel): never on the
	 * caller's thread, which may be an event loop. A script sent from one of its threads
	 * is handed off like one sent from an event loop: these threads never wait for a
	 * pooled connection.
	 * @return an executor of daemon threads, created as needed
	 */
	public static Executor blockingSteps() {
		return BlockingHandOff.blockingSteps();
	}

	// held here: a script's call reads a field, not the hand-off's
	private static final Executor BLOCKING_STEPS = BlockingHandOff.blockingSteps();

	private final RedisConnectionFactory connectionFactory;

	private final StringRedisTemplate template;

	private final BlockingHandOff handOff;

	private final ScriptConnection connection;

	private volatile @Nullable Boolean cluster;

	// which scripts with a native form are sent as that command: probed once connected,
	// and each off for good once a server refuses it
	private final NativeCommands nativeCommands = new NativeCommands();

	private volatile boolean nativeCommandsAllowed = true;

	private volatile boolean running;

	// how long a give-back waits for a connection at most: the command timeout
	private final Duration giveBackTimeout;

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
		this(connectionFactory, BlockingHandOff.checked(handOffThreads), BlockingHandOff.executor(handOffThreads));
	}

	/**
	 * Creates a runner that hands scripts off to {@code handOff}.
	 */
	RedisScriptRunner(RedisConnectionFactory connectionFactory, int handOffThreads, ExecutorService handOff) {
		this.connectionFactory = connectionFactory;
		this.template = new StringRedisTemplate(connectionFactory);
		this.handOff = new BlockingHandOff(handOffThreads, handOff);
		this.connection = new ScriptConnection(connectionFactory, this.template, this.nativeCommands);
		this.giveBackTimeout = ReplayWindow.commandTimeout(connectionFactory);
	}

	/**
	 * How many threads at most send the scripts of callers that must not block.
	 * @return the number of threads
	 */
	public int handOffThreads() {
		return this.handOff.threads();
	}

	/**
	 * How many threads a runner on a connection factory hands scripts off to by default:
	 * its pool's {@code max-active}, or {@value #DEFAULT_HAND_OFF_THREADS} without a pool
	 * or with an unbounded one.
	 * @param connectionFactory the connection factory
	 * @return the number of threads
	 */
	public static int defaultHandOffThreads(RedisConnectionFactory connectionFactory) {
		int maxActive = poolMaxActive(connectionFactory);
		return (maxActive > 0) ? maxActive : DEFAULT_HAND_OFF_THREADS;
	}

	/**
	 * How many connections the borrowers of a connection factory's pool share.
	 * @param connectionFactory the connection factory
	 * @return its pool's {@code max-active}, or {@code -1} without a pool or with an
	 * unbounded one
	 */
	public static int poolMaxActive(RedisConnectionFactory connectionFactory) {
		int maxActive = (ScriptConnection.LETTUCE_PRESENT && ScriptConnection.POOL_PRESENT)
				? LettuceConnections.maxActive(connectionFactory) : -1;
		return (maxActive > 0) ? maxActive : -1;
	}

	/**
	 * Opens the shared connection on a background thread, so that the first call does not
	 * pay for it and start-up does not wait for Redis.
	 * @return completes when the attempt ends, connected or not
	 */
	public CompletableFuture<Void> connectInBackground() {
		return CompletableFuture.runAsync(() -> this.connection.connect(this::probeNativeCommands),
				BlockingHandOff.blockingSteps());
	}

	private void probeNativeCommands(RedisConnection connection) {
		if (this.nativeCommandsAllowed && ScriptConnection.LETTUCE_PRESENT) {
			Properties info = connection.serverCommands().info("server");
			if (info != null) {
				this.nativeCommands.probe(info);
			}
		}
	}

	/**
	 * The native commands sent in place of the scripts with a {@link NativeForm} that
	 * names them: those the server (every node of a cluster) was found to take once
	 * connected ({@link #connectInBackground()}), and has not refused since.
	 * @return the commands sent; empty when only scripts are
	 */
	public Set<NativeCommand> nativeCommands() {
		return this.nativeCommands.sent();
	}

	// as if the probe had found a server that takes them all: the fallback's test
	void assumeNativeCommands() {
		this.nativeCommands.assumeAll();
	}

	/**
	 * Turns native commands off (scripts only) or back on, for servers that take them.
	 * @param allowed whether native commands may be sent
	 */
	public void allowNativeCommands(boolean allowed) {
		this.nativeCommandsAllowed = allowed;
		if (!allowed) {
			this.nativeCommands.clear();
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
			throw ScriptFailures.answered(script, ex);
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
		return executeAsync(script, timeout, keys, ScriptConnection.encode(List.of(args)));
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
		return bounded(executeAsync(script, keys, args), script, timeout);
	}

	/**
	 * Runs a script whose keys are encoded already without blocking the calling thread,
	 * as {@link #executeAsync(LuaScript, Duration, List, byte[][])} does: a caller on a
	 * hot path builds each key's bytes once, with no string in between.
	 * @param <T> the result type
	 * @param script the script
	 * @param timeout how long to wait
	 * @param keys the keys it touches, encoded as UTF-8 (in a cluster they must share a
	 * slot)
	 * @param args its arguments, sent as they are
	 * @return what the script will return
	 */
	public <T> CompletableFuture<T> executeAsync(LuaScript<T> script, Duration timeout, byte[][] keys, byte[][] args) {
		return bounded(executeAsync(script, keys, args), script, timeout);
	}

	private static <T> CompletableFuture<T> bounded(CompletableFuture<T> answer, LuaScript<T> script,
			Duration timeout) {
		// a timeout completes on the JDK's one timer thread: what follows a failure (a
		// release, a retry, a pooled connection's borrow) runs elsewhere, or one stuck
		// call would stop every timer of the process
		return answer.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
			.exceptionallyComposeAsync((ex) -> CompletableFuture
				.failedFuture((unwrap(ex) instanceof TimeoutException) ? new QueryTimeoutException(
						"Redis did not answer " + script.name() + " within " + timeout.toMillis() + " ms", unwrap(ex))
						: unwrap(ex)),
					BLOCKING_STEPS);
	}

	/**
	 * Bounds the wait for an answer already sent, failing it with a
	 * {@link TimeoutException} after {@code timeout}; the command itself goes on (a
	 * release queued behind a late acquire still frees it). A timeout completes on the
	 * JDK's one timer thread: what follows it (the caller's give-back bookkeeping, a
	 * reactive caller's value) runs on the blocking steps' threads instead.
	 * @param <T> the answer's type
	 * @param answer the answer
	 * @param timeout how long to wait
	 * @return the answer, or its timeout
	 */
	public static <T> CompletableFuture<T> within(CompletableFuture<T> answer, Duration timeout) {
		return answer.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
			.exceptionallyComposeAsync(CompletableFuture::failedFuture, BlockingHandOff.blockingSteps());
	}

	/**
	 * Waits for an event at most {@code timeout}: completes when the event does, either
	 * way, or once the time is up, whichever comes first. Bounded as {@link #within}
	 * bounds an answer, so that what follows a time that is up runs on the blocking
	 * steps' threads, not on the JDK's one timer thread; the event itself is left as it
	 * is.
	 * @param event what is waited for (shared by other waiters, maybe)
	 * @param timeout how long to wait
	 * @return completes once the event did or the time is up
	 */
	public static CompletableFuture<@Nullable Void> awaitAtMost(CompletableFuture<?> event, Duration timeout) {
		CompletableFuture<@Nullable Void> over = event.handle((value, ex) -> null);
		return within(over, timeout).exceptionally((ex) -> null);
	}

	/**
	 * The failure behind a {@link CompletionException}.
	 * @param ex what a future completed with
	 * @return the cause the future's stage wrapped, or {@code ex}
	 */
	public static Throwable unwrap(Throwable ex) {
		return ScriptFailures.unwrap(ex);
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
		return executeAsync(script, keys, ScriptConnection.encode(List.of(args)));
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
		CompletableFuture<T> answer = this.connection.sendIfKept(script, keys, args);
		if (answer != null) {
			return answer;
		}
		// until a connection has been made, making one blocks for the connect timeout;
		// the factory hands even its shared one out under a lock that a start, a reset or
		// another caller may hold, and makes it again there after a reset (the kept one
		// closed for good), for as long as the connect takes; a connection the factory
		// does not share is borrowed
		// or made for every script, which may wait for the pool (as the runner's own
		// may, with Boot's default max-wait for ever) or for a connect and handshake (up
		// to the command timeout): do it on another thread, so that callers, blocking
		// ones too, can still bound their wait and an event loop never waits
		CompletableFuture<T> handedOff = this.handOff.handOff(script.name(), script.givesBack(),
				(caller) -> this.connection.sendWaiting(script, keys, args, caller));
		// a give-back is sent once a connection frees, within the command timeout: its
		// caller's timeout or cancel completes only a copy, or what it frees would stay
		// held until its lease ends
		return script.givesBack() ? within(handedOff, this.giveBackTimeout) : handedOff;
	}

	/**
	 * Sends a script whose keys are encoded already without waiting for the answer, as
	 * {@link #executeAsync(LuaScript, List, byte[][])} does.
	 * @param <T> the result type
	 * @param script the script
	 * @param keys the keys it touches, encoded as UTF-8 (in a cluster they must share a
	 * slot)
	 * @param args its arguments, sent as they are
	 * @return the answer, completed exceptionally with a {@link DataAccessException}
	 */
	public <T> CompletableFuture<T> executeAsync(LuaScript<T> script, byte[][] keys, byte[][] args) {
		CompletableFuture<T> answer = this.connection.sendIfKept(script, keys, args);
		// not connected yet, or not on a kept connection: as any other script
		return (answer != null) ? answer : executeAsync(script, ScriptConnection.decode(keys), args);
	}

	/**
	 * Gives the runner's own pooled connection back to the pool, before the factory
	 * closes the pool (which would warn about a connection never released); scripts that
	 * would need it from then on fail. Called by {@link #stop()}, and when the
	 * application context closes.
	 */
	public void close() {
		this.connection.close();
	}

	/**
	 * Lets scripts borrow the runner's own pooled connection again after a
	 * {@link #stop()} (the connection factory starts again first).
	 */
	@Override
	public void start() {
		this.connection.reopen();
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
		return this.connection.isClosed();
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
	 * Waits for an answer at most {@code timeout}, translating failures; a wait that
	 * times out or is interrupted cancels the answer (the caller gave up). An answer that
	 * arrives as the wait ends, before the cancel, is what the caller gets: what it took
	 * (a multi-slot decision's permits) is then given back by the caller, who would never
	 * learn of it from a timeout.
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
			if (answer.cancel(false) || answer.isCancelled()) {
				throw new QueryTimeoutException(
						"Redis did not answer " + what + " within " + timeout.toMillis() + " ms", ex);
			}
		}
		catch (ExecutionException ex) {
			throw failure(ex, what);
		}
		catch (InterruptedException ex) {
			// an interrupted caller gave up as one that timed out did
			boolean cancelled = answer.cancel(false) || answer.isCancelled();
			Thread.currentThread().interrupt();
			if (cancelled) {
				throw new QueryTimeoutException("Interrupted while waiting for " + what, ex);
			}
		}
		// answered between the end of the wait and the cancel
		try {
			return answer.join();
		}
		catch (CompletionException ex) {
			throw failure(ex, what);
		}
	}

	private static DataAccessException failure(Exception ex, String what) {
		Throwable cause = unwrap(ex.getCause() != null ? ex.getCause() : ex);
		return (cause instanceof DataAccessException dataAccess) ? dataAccess
				: new RedisSystemException("Redis call " + what + " failed", cause);
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
			cluster = (ScriptConnection.LETTUCE_PRESENT
					&& this.connectionFactory instanceof LettuceConnectionFactory lettuce) ? lettuce.isClusterAware()
							: isClusterConnection();
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

}
