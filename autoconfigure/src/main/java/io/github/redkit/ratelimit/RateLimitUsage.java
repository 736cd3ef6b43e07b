package io.github.redkit.ratelimit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.ratelimit.internal.AlgorithmDescriptor;
import io.github.redkit.ratelimit.internal.PreparedLimit;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * Reads an identifier's usage of a limit without consuming anything: the record the
 * decision scripts keep is read with one {@code GET} (a {@code ZCOUNT} per window for a
 * sliding log) and decoded by the algorithm's descriptor, on Redis' clock ({@code TIME}).
 * Reading Java-side keeps the hot scripts untouched; a read that races a decision may be
 * one call behind, which is fine for an operator's view.
 */
public final class RateLimitUsage {

	private RateLimitUsage() {
	}

	/**
	 * The usage of one window.
	 *
	 * @param limit permits per period
	 * @param period the period
	 * @param used permits counted now
	 * @param remaining permits left now
	 * @param resetsIn until every counted permit is back (zero when none is counted)
	 */
	public record Window(long limit, Duration period, long used, long remaining, Duration resetsIn) {

		/**
		 * The usage of a window with {@code used} permits counted.
		 * @param window the window
		 * @param used permits counted now
		 * @param resetsInMillis until every counted permit is back, in milliseconds
		 * @return the usage
		 */
		public static Window of(RateLimitWindow window, long used, double resetsInMillis) {
			long clamped = Math.max(0, Math.min(used, window.limit()));
			return new Window(window.limit(), window.period(), clamped, window.limit() - clamped,
					Duration.ofMillis((clamped > 0) ? (long) Math.ceil(Math.max(0, resetsInMillis)) : 0));
		}

	}

	/**
	 * The Redis key that holds an identifier's state of a named limit.
	 * @param keyspace the keyspace
	 * @param limitName the limit
	 * @param policy its policy
	 * @param identifier the identifier
	 * @return the key
	 */
	public static String key(RedisKeyspace keyspace, String limitName, RateLimitPolicy policy, String identifier) {
		return PreparedLimit.of(limitName, policy, keyspace).key(identifier);
	}

	/**
	 * Reads the usage of every window of a policy.
	 * @param connection the connection
	 * @param key the identifier's key (see {@link #key})
	 * @param policy the policy
	 * @return one usage per window, in the policy's order
	 */
	public static List<Window> read(RedisConnection connection, String key, RateLimitPolicy policy) {
		Long micros = connection.serverCommands().time(TimeUnit.MICROSECONDS);
		double now = (micros != null) ? micros / 1000.0 : System.currentTimeMillis();
		return AlgorithmDescriptor.of(policy.algorithm())
			.usage(connection, key.getBytes(StandardCharsets.UTF_8), policy, now);
	}

}
