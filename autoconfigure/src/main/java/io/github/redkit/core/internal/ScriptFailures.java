package io.github.redkit.core.internal;

import java.util.concurrent.CompletionException;

import io.github.redkit.core.RedkitScriptException;

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
		if (translated == null || translated.getClass() == RedisSystemException.class) {
			return new RedkitScriptException(script.name(), ex);
		}
		return translated;
	}

}
