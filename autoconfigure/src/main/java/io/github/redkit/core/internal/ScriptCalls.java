package io.github.redkit.core.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.output.ValueOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolKeyword;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Sends one script on Lettuce's asynchronous commands: {@code EVALSHA}, then {@code EVAL}
 * on {@code NOSCRIPT}, or the script's native form where the server takes it, with the
 * reply converted to what the script declares. Loaded only when Lettuce is there.
 */
final class ScriptCalls {

	// the runner's name: the category applications already configure
	private static final Log logger = LogFactory.getLog(RedisScriptRunner.class);

	// the commands' keywords; a command Lettuce does not name (DELIFEQ) is sent by name
	private static final ProtocolKeyword[] KEYWORDS = keywords();

	private ScriptCalls() {
	}

	/**
	 * Sends a script on a connection the factory handed out.
	 * @param commands the connection's asynchronous commands, Lettuce's scripting ones
	 */
	@SuppressWarnings("unchecked")
	static <T> CompletableFuture<T> execute(Object commands, LuaScript<T> script, byte[][] keys, byte[][] args,
			NativeCommands nativeCommands) {
		return execute((RedisScriptingAsyncCommands<byte[], byte[]>) commands, null, script, keys, args,
				nativeCommands);
	}

	/**
	 * Sends a script on a kept connection, unless it was closed (the factory reset or
	 * stopped it). A connection that reconnects takes it: Lettuce sends it once
	 * reconnected, after those sent before.
	 * @return the answer, or {@code null} when the connection is closed and the script
	 * was not sent (a script {@linkplain LuaScript#droppingReplays() dropping re-sends}
	 * written before the connection closed fails instead)
	 */
	@SuppressWarnings("unchecked")
	static <T> @Nullable CompletableFuture<T> executeIfOpen(ScriptConnection.KeptConnection kept, LuaScript<T> script,
			byte[][] keys, byte[][] args, NativeCommands nativeCommands) {
		StatefulConnection<byte[], byte[]> connection = (StatefulConnection<byte[], byte[]>) kept.connection();
		if (isClosed(connection)) {
			return null;
		}
		CompletableFuture<T> answer;
		boolean refused = false;
		try {
			answer = execute((RedisScriptingAsyncCommands<byte[], byte[]>) kept.commands(), connection, script, keys,
					args, nativeCommands);
		}
		catch (RuntimeException ex) {
			// thrown before anything was handed to the connection
			answer = CompletableFuture.failedFuture(ScriptFailures.translate(script, ex));
			refused = true;
		}
		// closed meanwhile: Lettuce refused the script without sending it, and it is sent
		// on another connection; but a script that drops its re-sends and was written may
		// have been applied (its answer lost with the connection): never sent again
		return (answer.isCompletedExceptionally() && isClosed(connection) && (refused || !script.dropsReplays()
				|| answer.handle((value, ex) -> ScriptFailures.notSent(ex)).join())) ? null : answer;
	}

	/**
	 * Whether a connection is gone for good: closed, or disconnected without
	 * reconnecting. Lettuce's {@code isOpen()} is {@code false} during every reconnect
	 * too, while the commands sent on it wait to be replayed in order.
	 * @param connection the connection, {@code null} for commands of an unknown kind
	 * @return whether scripts can no longer be sent on it
	 */
	static boolean isClosed(@Nullable StatefulConnection<?, ?> connection) {
		if (connection == null) {
			return true;
		}
		if (connection instanceof RedisChannelHandler<?, ?> handler && handler.isClosed()) {
			return true;
		}
		return !connection.isOpen() && !connection.getOptions().isAutoReconnect();
	}

	/**
	 * Sends a script, or its native form where the server takes it; a server that refuses
	 * the native form gets the script, from then on.
	 */
	@SuppressWarnings("unchecked")
	private static <T> Answer<T> execute(RedisScriptingAsyncCommands<byte[], byte[]> commands,
			@Nullable StatefulConnection<byte[], byte[]> connection, LuaScript<T> script, byte[][] keys, byte[][] args,
			NativeCommands nativeCommands) {
		NativeForm form = script.nativeForm();
		byte[][] values = (form != null && nativeCommands.sends(form.command())
				&& commands instanceof BaseRedisAsyncCommands<?, ?>) ? form.arguments(keys, args) : null;
		if (form == null || values == null) {
			return execute(commands, connection, script, keys, args);
		}
		CommandArgs<byte[], byte[]> arguments = new CommandArgs<>(ByteArrayCodec.INSTANCE);
		arguments.addKey(values[0]);
		for (int i = 1; i < values.length; i++) {
			arguments.add(values[i]);
		}
		Answer<T> result = new Answer<>();
		((BaseRedisAsyncCommands<byte[], byte[]>) commands)
			.dispatch(KEYWORDS[form.command().ordinal()], output(form.command()), arguments)
			.whenComplete((reply, ex) -> {
				Object decided = (ex == null) ? form.result(reply) : null;
				if (decided != null) {
					result.complete((T) decided);
				}
				else if ((ex == null || isRefusal(ex)) && script.givenUpWithCaller() && result.givenUp()) {
					// the caller gave up a script given up with it: it is not sent in the
					// command's place (a refusal still turns the command off)
					if (ex != null) {
						nativeCommands.refused(form.command());
					}
					// completed, so that a connection made or borrowed for it goes back
					result.cancel(false);
				}
				else if (ex == null || isRefusal(ex)) {
					if (ex != null && nativeCommands.refused(form.command())) {
						logger.info("Redis refused " + form.command().command() + " in place of " + script.name() + " ("
								+ ScriptFailures.unwrap(ex).getMessage() + "): its scripts from now on");
					}
					try {
						Answer<T> sent = execute(commands, connection, script, keys, args);
						// a caller who gives up meanwhile gives the script up too
						result.givenUpWith(sent);
						sent.whenComplete((value, failure) -> {
							if (failure != null) {
								result.completeExceptionally(failure);
							}
							else {
								result.complete(value);
							}
						});
					}
					catch (Throwable failure) {
						// the script refused at once: the caller's future still completes
						result.completeExceptionally(ScriptFailures.translate(script, failure));
					}
				}
				else {
					result.completeExceptionally(ScriptFailures.translate(script, ex));
				}
			});
		return result;
	}

	private static CommandOutput<byte[], byte[], ?> output(NativeCommand command) {
		return command.integerReply() ? new IntegerOutput<>(ByteArrayCodec.INSTANCE)
				: new StatusOutput<>(ByteArrayCodec.INSTANCE);
	}

	private static ProtocolKeyword[] keywords() {
		NativeCommand[] commands = NativeCommand.values();
		ProtocolKeyword[] keywords = new ProtocolKeyword[commands.length];
		for (NativeCommand command : commands) {
			keywords[command.ordinal()] = keyword(command.command());
		}
		return keywords;
	}

	private static ProtocolKeyword keyword(String name) {
		for (CommandType type : CommandType.values()) {
			if (type.name().equals(name)) {
				return type;
			}
		}
		byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
		return new ProtocolKeyword() {

			@Override
			public byte[] getBytes() {
				return bytes;
			}

			@Override
			public String toString() {
				return name;
			}

		};
	}

	// a server without the command's form answers a syntax error or an unknown
	// command, which the script never meets
	private static boolean isRefusal(Throwable ex) {
		String message = ScriptFailures.unwrap(ex).getMessage();
		return message != null && (message.contains("syntax error") || message.startsWith("ERR unknown"));
	}

	/**
	 * Sends a script as {@code EVALSHA}, then as {@code EVAL} on {@code NOSCRIPT}.
	 * @param connection the connection behind {@code commands} when the caller holds it,
	 * else {@code null}: read from the commands for a script that drops its re-sends
	 */
	static <T> Answer<T> execute(RedisScriptingAsyncCommands<byte[], byte[]> commands,
			@Nullable StatefulConnection<byte[], byte[]> connection, LuaScript<T> script, byte[][] keys,
			byte[][] args) {
		// read before sending: the reply's completion, on Lettuce's event loop, only
		// completes
		boolean returnsBytes = script.returnsBytes();
		Answer<T> result = new Answer<>();
		// one future for the caller, completed straight from Lettuce's command: a script
		// sent with every decision pays for no stage in between
		send(commands, connection, script, CommandType.EVALSHA, keys, args, (value, ex) -> {
			if (ex != null && isNoScript(ex) && script.givenUpWithCaller() && result.givenUp()) {
				// the caller gave up (RedisScriptRunner.await cancels on its timeout) a
				// script given up with it (a take would read entries for nobody, a
				// delivery counted): it is not sent again, and its answer completes, so
				// that a connection made or borrowed for it goes back; any other, a
				// release that timed out across a failover, is applied once Redis
				// answers
				result.cancel(false);
				return;
			}
			if (ex != null && isNoScript(ex)) {
				try {
					send(commands, connection, script, CommandType.EVAL, keys, args,
							(again, failure) -> complete(result, script, returnsBytes, again, failure));
				}
				catch (Throwable failure) {
					// refused at once, even by an Error: the caller's future still
					// completes (thrown out of this callback, the failure would be lost
					// in a stage nobody reads)
					complete(result, script, returnsBytes, null, failure);
				}
			}
			else {
				complete(result, script, returnsBytes, value, ex);
			}
		});
		return result;
	}

	@SuppressWarnings("unchecked")
	private static <T> void complete(CompletableFuture<T> result, LuaScript<T> script, boolean returnsBytes,
			@Nullable Object value, @Nullable Throwable ex) {
		if (ex != null) {
			result.completeExceptionally(ScriptFailures.translate(script, ex));
		}
		else {
			result.complete(returnsBytes ? (T) value : convert(value));
		}
	}

	/**
	 * Sends {@code EVALSHA} or {@code EVAL}, handing its reply or failure to
	 * {@code answer}; for a script whose re-sends are dropped, through a
	 * {@link ReplayGuard}.
	 */
	private static void send(RedisScriptingAsyncCommands<byte[], byte[]> commands,
			@Nullable StatefulConnection<byte[], byte[]> known, LuaScript<?> script, CommandType type, byte[][] keys,
			byte[][] args, BiConsumer<@Nullable Object, @Nullable Throwable> answer) {
		StatefulConnection<byte[], byte[]> connection = !script.dropsReplays() ? null
				: (known != null) ? known : LettuceConnections.statefulConnection(commands);
		if (connection == null) {
			((type == CommandType.EVALSHA) ? commands.<Object>evalsha(script.sha1(), script.outputType(), keys, args)
					: commands.<Object>eval(script.source(), script.outputType(), keys, args))
				.whenComplete(answer);
			return;
		}
		ReplayGuard<Object> guard = new ReplayGuard<>(
				command(script, type, keys, args, connection instanceof StatefulRedisClusterConnection));
		AsyncCommand<byte[], byte[], Object> sent = new AsyncCommand<>(guard);
		try {
			connection.dispatch(sent);
		}
		catch (RuntimeException ex) {
			// refused (a closed connection throws)
			answer.accept(null, guard.written() ? ex : ScriptFailures.notSent(script, ex));
			return;
		}
		sent.whenComplete((value, ex) -> {
			if (ex != null) {
				// never written, Redis cannot have applied it: the caller may send it on
				// another connection; once written, only Redis knows
				answer.accept(null, guard.written() ? ex : ScriptFailures.notSent(script, ex));
			}
			else if (guard.dropped()) {
				answer.accept(null, ScriptFailures.replayDropped(script));
			}
			else {
				answer.accept(value, null);
			}
		});
	}

	/**
	 * The command of a script: an {@code EVALSHA}, sent with every call, encodes itself;
	 * the {@code EVAL} after a {@code NOSCRIPT} is Lettuce's own.
	 */
	private static Command<byte[], byte[], Object> command(LuaScript<?> script, CommandType type, byte[][] keys,
			byte[][] args, boolean routed) {
		if (type == CommandType.EVALSHA) {
			return new ReplayGuard.EncodedEvalsha<>(script.evalshaHead(), output(script), keys, args, routed);
		}
		CommandArgs<byte[], byte[]> arguments = new CommandArgs<>(ByteArrayCodec.INSTANCE);
		arguments.add(script.source()).add(keys.length).addKeys(keys).addValues(args);
		return new Command<>(type, output(script), arguments);
	}

	// the output Lettuce's own EVALSHA gives each type
	private static CommandOutput<byte[], byte[], Object> output(LuaScript<?> script) {
		return switch (script.outputType()) {
			case INTEGER -> cast(new IntegerOutput<>(ByteArrayCodec.INSTANCE));
			case BOOLEAN -> cast(new BooleanOutput<>(ByteArrayCodec.INSTANCE));
			case STATUS -> cast(new StatusOutput<>(ByteArrayCodec.INSTANCE));
			case MULTI -> cast(new NestedMultiOutput<>(ByteArrayCodec.INSTANCE));
			default -> cast(new ValueOutput<>(ByteArrayCodec.INSTANCE));
		};
	}

	@SuppressWarnings("unchecked")
	private static CommandOutput<byte[], byte[], Object> cast(CommandOutput<byte[], byte[], ?> output) {
		return (CommandOutput<byte[], byte[], Object>) output;
	}

	private static boolean isNoScript(Throwable ex) {
		Throwable cause = ScriptFailures.unwrap(ex);
		return cause instanceof RedisNoScriptException
				|| (cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT"));
	}

	/**
	 * Gives up the call behind an answer of {@link #execute} whose caller holds only a
	 * copy of it (the copy's cancel completes nothing here): a script
	 * {@linkplain LuaScript#givenUpWithItsCaller() given up with its caller} is then not
	 * sent again after {@code NOSCRIPT}, as if its answer had been cancelled, while the
	 * answer still completes with the command that Redis answers.
	 * @param answer an answer of {@link #execute}
	 */
	static void giveUp(CompletableFuture<?> answer) {
		if (answer instanceof Answer<?> call) {
			call.giveUp();
		}
	}

	/**
	 * The answer of one script call: cancelled, or {@linkplain #giveUp() given up} by a
	 * caller who holds a copy of it, its call is given up.
	 */
	static final class Answer<T> extends CompletableFuture<T> {

		private volatile boolean givenUp;

		// the script sent in place of a native form Redis refused: given up with this
		private volatile @Nullable Answer<?> next;

		void giveUp() {
			this.givenUp = true;
			Answer<?> next = this.next;
			if (next != null) {
				next.giveUp();
			}
		}

		boolean givenUp() {
			return this.givenUp || isCancelled();
		}

		void givenUpWith(Answer<?> next) {
			this.next = next;
			if (this.givenUp) {
				next.giveUp();
			}
		}

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			giveUp();
			return super.cancel(mayInterruptIfRunning);
		}

		// what depends on an answer (a caller's copy) is a plain future
		@Override
		public <U> CompletableFuture<U> newIncompleteFuture() {
			return new CompletableFuture<>();
		}

	}

	@SuppressWarnings("unchecked")
	private static <T> @Nullable T convert(@Nullable Object value) {
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
