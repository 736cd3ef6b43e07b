package io.github.redkit.resilience4j;

import java.time.Duration;
import java.util.List;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.BackgroundReads;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitUsage;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Reads how many permits of a Redkit rate limit are left now for one identifier, across
 * every instance, without taking any: what Resilience4j's
 * {@code getAvailablePermissions()} reports, and its
 * {@code resilience4j.ratelimiter.available.permissions} gauge with it. The
 * auto-configured reader is {@link #inBackground}: a scrape never waits for Redis.
 */
@FunctionalInterface
public interface PermitsLeft {

	/**
	 * The permits left now in the most restrictive window.
	 * @param limitName the Redkit limit
	 * @param policy its policy
	 * @param key the identifier
	 * @return the permits left
	 */
	long read(String limitName, RateLimitPolicy policy, String key);

	/**
	 * Reads the record Redkit's decision scripts keep (one {@code GET}, on Redis' clock),
	 * as the {@code redkit} endpoint does.
	 * @param connectionFactory the application's Redis
	 * @param keyspace Redkit's keys
	 * @return the reader
	 */
	static PermitsLeft fromRedis(RedisConnectionFactory connectionFactory, RedisKeyspace keyspace) {
		return (limitName, policy, key) -> {
			try (RedisConnection connection = connectionFactory.getConnection()) {
				List<RateLimitUsage.Window> windows = RateLimitUsage.read(connection,
						RateLimitUsage.key(keyspace, limitName, policy, key), policy);
				return windows.stream().mapToLong(RateLimitUsage.Window::remaining).min().orElse(0);
			}
		};
	}

	/**
	 * Reads in the background: a call returns the value last read for the limit and
	 * identifier ({@code 0} before the first read, after a failed one, and while one is
	 * late) and, when that is older than {@code refresh}, asks for the next read, one
	 * read at a time on a thread of its own.
	 * @param reader reads Redis
	 * @param refresh how old a value may be before a call asks for the next
	 * @return the reader that never waits for Redis
	 * @throws IllegalArgumentException when {@code refresh} is not positive
	 */
	static PermitsLeft inBackground(PermitsLeft reader, Duration refresh) {
		return new BackgroundPermitsLeft(reader, new BackgroundReads("redkit-resilience4j-gauges", refresh));
	}

}
