package io.github.redkit.core.internal;

import org.springframework.data.redis.RedisConnectionFailureException;

/**
 * A call of a script {@linkplain LuaScript#droppingReplays() dropping re-sends} that
 * failed before it was written (the connection refused it): Redis cannot have applied it,
 * so the runner may send it on another connection.
 */
final class ScriptNotSentException extends RedisConnectionFailureException {

	ScriptNotSentException(String message, Throwable cause) {
		super(message, cause);
	}

}
