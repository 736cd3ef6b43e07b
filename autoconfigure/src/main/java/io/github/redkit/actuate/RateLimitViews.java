package io.github.redkit.actuate;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitUsage;
import io.github.redkit.ratelimit.RateLimiter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Rate limits: the configured policies, an identifier's usage per window (read without
 * consuming, see {@link RateLimitUsage}) and the reset of its counters.
 */
public class RateLimitViews {

	private static final Log logger = LogFactory.getLog(RateLimitViews.class);

	private final RateLimiter rateLimiter;

	private final Collection<String> limitNames;

	private final RedisConnectionFactory connectionFactory;

	private final RedisKeyspace keyspace;

	/**
	 * Creates the views.
	 * @param rateLimiter the rate limiter
	 * @param limitNames the configured limits
	 * @param connectionFactory the connection factory
	 * @param keyspace the keyspace
	 */
	public RateLimitViews(RateLimiter rateLimiter, Collection<String> limitNames,
			RedisConnectionFactory connectionFactory, RedisKeyspace keyspace) {
		this.rateLimiter = rateLimiter;
		this.limitNames = List.copyOf(limitNames);
		this.connectionFactory = connectionFactory;
		this.keyspace = keyspace;
	}

	/**
	 * The configured policies.
	 * @return policy per limit name
	 */
	public Map<String, Object> policies() {
		Map<String, Object> policies = new LinkedHashMap<>();
		for (String name : this.limitNames) {
			this.rateLimiter.policy(name).ifPresent((policy) -> policies.put(name, describe(policy)));
		}
		return policies;
	}

	/**
	 * An identifier's usage of a limit, per window.
	 * @param limit the limit
	 * @param key the identifier
	 * @return the usage, or {@code null} for an unknown limit
	 */
	public @Nullable Map<String, Object> usage(String limit, String key) {
		RateLimitPolicy policy = this.rateLimiter.policy(limit).orElse(null);
		if (policy == null) {
			return null;
		}
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			List<RateLimitUsage.Window> windows = RateLimitUsage.read(connection,
					RateLimitUsage.key(this.keyspace, limit, policy, key), policy);
			Map<String, Object> usage = new LinkedHashMap<>();
			usage.put("limit", limit);
			usage.put("key", key);
			usage.put("algorithm", policy.algorithm().id());
			usage.put("windows", windows.stream().map(RateLimitViews::describe).toList());
			return usage;
		}
	}

	/**
	 * Deletes an identifier's counters of a limit.
	 * @param limit the limit
	 * @param key the identifier
	 * @param who the operator, if known
	 * @return whether there were counters, or {@code null} for an unknown limit
	 */
	public @Nullable Boolean reset(String limit, String key, String who) {
		RateLimitPolicy policy = this.rateLimiter.policy(limit).orElse(null);
		if (policy == null) {
			return null;
		}
		String redisKey = RateLimitUsage.key(this.keyspace, limit, policy, key);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Long deleted = connection.keyCommands().del(redisKey.getBytes(StandardCharsets.UTF_8));
			logger.info("Rate limit '" + limit + "' reset for one key by " + who + " through the redkit endpoint");
			return deleted != null && deleted > 0;
		}
	}

	private static Map<String, Object> describe(RateLimitPolicy policy) {
		Map<String, Object> described = new LinkedHashMap<>();
		described.put("algorithm", policy.algorithm().id());
		described.put("windows",
				policy.windows()
					.stream()
					.map((window) -> Map.of("limit", window.limit(), "period", window.period().toString()))
					.toList());
		return described;
	}

	private static Map<String, Object> describe(RateLimitUsage.Window window) {
		Map<String, Object> described = new LinkedHashMap<>();
		described.put("limit", window.limit());
		described.put("period", window.period().toString());
		described.put("used", window.used());
		described.put("remaining", window.remaining());
		described.put("resetsIn", window.resetsIn().toString());
		return described;
	}

}
