package io.github.redkit.core.internal;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.Assert;

/**
 * How long a record of an operation id generated per call is kept: as long as Lettuce may
 * send the call again after a reconnect (issue 43). Every capability that makes a call
 * apply once under a generated id keeps its record this long.
 */
public final class ReplayWindow {

	/**
	 * Lettuce's command timeout when the connection's is not known: the longest a command
	 * is sent again after a reconnect (Spring's client options time commands out).
	 */
	public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(60);

	private ReplayWindow() {
	}

	/**
	 * The replay window: Lettuce sends a command again until the connection's command
	 * timeout (or the caller's, if longer, on a connection that waits for it), and a copy
	 * sent at the last moment still needs to reach Redis: twice that, never longer than
	 * {@code cap}.
	 * @param commandTimeout the connection's command timeout
	 * @param timeout the capability's own timeout
	 * @param cap the longest a record is kept (the records of the caller's ids)
	 * @return the window
	 */
	public static Duration of(Duration commandTimeout, Duration timeout, Duration cap) {
		Assert.isTrue(commandTimeout.toMillis() > 0, "commandTimeout must be positive");
		Duration longer = (commandTimeout.compareTo(timeout) >= 0) ? commandTimeout : timeout;
		Duration window = longer.multipliedBy(2);
		return (window.compareTo(cap) <= 0) ? window : cap;
	}

	/**
	 * Until when Lettuce may send a command again after a reconnect on a connection
	 * factory: its command timeout, {@link #DEFAULT_COMMAND_TIMEOUT} when unknown.
	 * @param connectionFactory the application's connection factory, if any
	 * @return the command timeout
	 */
	public static Duration commandTimeout(@Nullable RedisConnectionFactory connectionFactory) {
		if (connectionFactory instanceof LettuceConnectionFactory lettuce) {
			Duration timeout = lettuce.getClientConfiguration().getCommandTimeout();
			if (timeout.toMillis() > 0) {
				return timeout;
			}
		}
		return DEFAULT_COMMAND_TIMEOUT;
	}

}
