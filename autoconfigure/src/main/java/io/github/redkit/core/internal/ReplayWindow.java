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

	/** How many times a give-back is sent before it counts as failed. */
	public static final int GIVE_BACK_ATTEMPTS = 4;

	/** The pause before a give-back's second attempt, doubled before each later one. */
	public static final long GIVE_BACK_FIRST_BACKOFF_MILLIS = 50;

	/**
	 * The least an applied give-back is remembered, so that a late attempt is ignored:
	 * enough for a command timeout up to Boot's 60 s ({@link #giveBackMarker}).
	 */
	public static final Duration GIVE_BACK_MARKER_FLOOR = Duration.ofMinutes(5);

	private ReplayWindow() {
	}

	/**
	 * How long an applied give-back is remembered: longer than its last attempt, or a
	 * copy of it Lettuce sends again after a reconnect, may reach Redis after the first
	 * application. The last attempt starts after the others timed out and paused; a
	 * give-back waits for a connection up to the command timeout before it is written
	 * ({@link LuaScript#givingBack()}), Lettuce sends it again until a command timeout
	 * after that, and a copy sent then reaches Redis within one more: three command
	 * timeouts and the attempts, never less than {@link #GIVE_BACK_MARKER_FLOOR}. Every
	 * capability whose give-back keeps a marker (a rate limit's refund, local or global)
	 * keeps it this long.
	 * @param commandTimeout the connection's command timeout
	 * @param attemptTimeout how long one attempt waits for Redis
	 * @return how long the marker is kept
	 */
	public static Duration giveBackMarker(Duration commandTimeout, Duration attemptTimeout) {
		Duration attempts = attemptTimeout.plusMillis(GIVE_BACK_FIRST_BACKOFF_MILLIS << (GIVE_BACK_ATTEMPTS - 1))
			.multipliedBy(GIVE_BACK_ATTEMPTS);
		Duration needed = commandTimeout.multipliedBy(3).plus(attempts);
		return (needed.compareTo(GIVE_BACK_MARKER_FLOOR) > 0) ? needed : GIVE_BACK_MARKER_FLOOR;
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
