package io.github.redkit.core.internal;

import org.springframework.data.redis.RedisConnectionFailureException;

/**
 * A call of a script {@linkplain LuaScript#droppingReplays() dropping re-sends} that
 * Lettuce would have sent again after a reconnect, and that Redkit did not send: the
 * first write may or may not have reached Redis. Unlike a timeout it says nothing of an
 * outage (a {@code PING} sent in its place was answered), so a capability answers this
 * call with its unknown-outcome path and starts no failure cooldown.
 */
public final class ReplayDroppedException extends RedisConnectionFailureException {

	ReplayDroppedException(String message) {
		super(message);
	}

}
