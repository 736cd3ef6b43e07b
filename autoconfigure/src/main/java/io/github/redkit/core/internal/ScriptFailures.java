package io.github.redkit.core.internal;

import java.util.concurrent.CompletionException;

import io.github.redkit.core.RedkitScriptException;
import io.lettuce.core.RedisCommandExecutionException;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;

/**
 * What a script's failure becomes: a connection failure or a timeout keeps its Spring
 * type, an error answered by Redis becomes a {@link RedkitScriptException} naming the
 * script.
 */
final class ScriptFailures {

	private ScriptFailures() {
	}

	/**
	 * The failure behind a {@link CompletionException}.
	 */
	static Throwable unwrap(Throwable ex) {
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	/**
	 * The failure of a call Lettuce would have sent again after a reconnect, and that a
	 * script {@linkplain LuaScript#droppingReplays() dropping re-sends} did not send: the
	 * first write may or may not have reached Redis, as after a timeout.
	 */
	static ReplayDroppedException replayDropped(LuaScript<?> script) {
		return new ReplayDroppedException("The connection dropped after " + script.name()
				+ " was sent and before its answer came back; Redkit did not send it again, so whether Redis applied it is unknown");
	}

	/**
	 * The failure of a call of a script {@linkplain LuaScript#droppingReplays() dropping
	 * re-sends} that was never written: Redis cannot have applied it.
	 */
	static ScriptNotSentException notSent(LuaScript<?> script, Throwable failure) {
		Throwable ex = unwrap(failure);
		return new ScriptNotSentException(script.name() + " was not sent: " + ex.getMessage(), ex);
	}

	/**
	 * Whether a failed answer is that of a call never written.
	 */
	static boolean notSent(Throwable failure) {
		return unwrap(failure) instanceof ScriptNotSentException;
	}

	static DataAccessException translate(LuaScript<?> script, Throwable failure) {
		Throwable ex = unwrap(failure);
		if (ex instanceof DataAccessException dataAccess) {
			return dataAccess;
		}
		DataAccessException translated = (ScriptConnection.LETTUCE_PRESENT && ex instanceof Exception exception)
				? new LettuceExceptionConverter().convert(exception) : null;
		if (translated == null) {
			return new RedkitScriptException(script.name(), ex);
		}
		return (translated instanceof RedisSystemException system && system.getClass() == RedisSystemException.class)
				? answered(script, system) : translated;
	}

	/**
	 * What a call's failure that Spring can only call a {@link RedisSystemException}
	 * becomes: a {@link RedkitScriptException} when Redis answered the call with an error
	 * (it applied nothing), else the same (Lettuce's "Connection closed": the call may
	 * have been applied, and its caller must not take it for answered).
	 * @param script the script called
	 * @param failure what Spring translated the call's failure to
	 * @return the failure to report
	 */
	static DataAccessException answered(LuaScript<?> script, RedisSystemException failure) {
		return (!ScriptConnection.LETTUCE_PRESENT || errorReply(failure))
				? new RedkitScriptException(script.name(), failure) : failure;
	}

	/**
	 * Whether Redis answered with an error (Lettuce's
	 * {@link RedisCommandExecutionException}: a script's error, {@code NOSCRIPT},
	 * {@code WRONGTYPE}, {@code OOM}, {@code BUSY}).
	 */
	private static boolean errorReply(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof RedisCommandExecutionException) {
				return true;
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return false;
	}

}
