package io.github.redkit.actuate;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.redkit.core.LuaScript;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedisScriptRunner;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitUsage;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.region.RegionOutbox;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Rate limits: the configured policies, an identifier's usage per window (read without
 * consuming, see {@link RateLimitUsage}) and the reset of its counters. A limit marked
 * global is read and reset in the regional sub-window counters it counts in: its usage is
 * every region's calls that this region has received, and its reset zeroes them here and,
 * once replicated, in every region.
 */
public class RateLimitViews {

	private static final Log logger = LogFactory.getLog(RateLimitViews.class);

	private final RateLimiter rateLimiter;

	private final Collection<String> limitNames;

	private final RedisConnectionFactory connectionFactory;

	private final RedisKeyspace keyspace;

	private @Nullable GlobalLimits global;

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
	 * Reads and resets the limits marked global where they count: the regional counters
	 * of this region's outbox.
	 * @param runner runs the scripts on the local Redis
	 * @param outbox this region's outbox
	 * @param limitNames the limits marked global
	 */
	public void setGlobalLimits(RedisScriptRunner runner, RegionOutbox outbox, Set<String> limitNames) {
		this.global = new GlobalLimits(runner, outbox, Set.copyOf(limitNames));
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
		GlobalLimits global = global(limit);
		List<RateLimitUsage.Window> windows = (global != null) ? global.usage(limit, policy, key)
				: localUsage(limit, policy, key);
		Map<String, Object> usage = new LinkedHashMap<>();
		usage.put("limit", limit);
		usage.put("key", key);
		usage.put("algorithm", policy.algorithm().id());
		if (global != null) {
			usage.put("global", true);
		}
		usage.put("windows", windows.stream().map(RateLimitViews::describe).toList());
		return usage;
	}

	private List<RateLimitUsage.Window> localUsage(String limit, RateLimitPolicy policy, String key) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return RateLimitUsage.read(connection, RateLimitUsage.key(this.keyspace, limit, policy, key), policy);
		}
	}

	/**
	 * Resets an identifier's counters of a limit: deletes them, or, for a limit marked
	 * global, zeroes the calls of every region that this region has received, here and,
	 * through the outbox, in every peer (calls a peer made that have not reached this
	 * region yet still count).
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
		GlobalLimits global = global(limit);
		boolean reset;
		if (global != null) {
			reset = global.reset(limit, policy, key);
		}
		else {
			String redisKey = RateLimitUsage.key(this.keyspace, limit, policy, key);
			try (RedisConnection connection = this.connectionFactory.getConnection()) {
				Long deleted = connection.keyCommands().del(redisKey.getBytes(StandardCharsets.UTF_8));
				reset = deleted != null && deleted > 0;
			}
		}
		logger.info("Rate limit '" + limit + "' reset for one key by " + who + " through the redkit endpoint");
		return reset;
	}

	private @Nullable GlobalLimits global(String limit) {
		GlobalLimits global = this.global;
		return (global != null && global.names().contains(limit)) ? global : null;
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

	/**
	 * The limits marked global and where they count.
	 */
	private record GlobalLimits(RedisScriptRunner runner, RegionOutbox outbox, Set<String> names) {

		@SuppressWarnings("rawtypes")
		private static final LuaScript<List> USAGE = LuaScript.load("endpoint_global_usage", List.class);

		private static final LuaScript<Long> RESET = LuaScript.load("endpoint_global_reset", Long.class);

		List<RateLimitUsage.Window> usage(String limit, RateLimitPolicy policy, String key) {
			String counter = this.outbox.counter(limit,
					io.github.redkit.region.GlobalRateLimitDecider.counterName(limit, key));
			List<String> args = new ArrayList<>();
			args.add(Integer.toString(policy.subWindows()));
			policy.windows().forEach((window) -> args.add(Long.toString(window.period().toMillis())));
			List<?> reply = this.runner.execute(USAGE, List.of(counter), args.toArray(String[]::new));
			List<RateLimitUsage.Window> windows = new ArrayList<>();
			for (int j = 0; j < policy.windows().size(); j++) {
				RateLimitWindow window = policy.windows().get(j);
				long used = Math.min(((Number) reply.get(2 * j)).longValue(), window.limit());
				long resetsIn = (used > 0) ? ((Number) reply.get(2 * j + 1)).longValue() : 0;
				windows.add(new RateLimitUsage.Window(window.limit(), window.period(), used, window.limit() - used,
						Duration.ofMillis(resetsIn)));
			}
			return windows;
		}

		boolean reset(String limit, RateLimitPolicy policy, String key) {
			String name = io.github.redkit.region.GlobalRateLimitDecider.counterName(limit, key);
			List<String> args = new ArrayList<>();
			args.add(Integer.toString(policy.subWindows()));
			args.add(this.outbox.region());
			args.add(Long.toString(this.outbox.maxLength()));
			args.add(name);
			policy.windows().forEach((window) -> args.add(Long.toString(window.period().toMillis())));
			List<String> keys = List.of(this.outbox.sequence(limit), this.outbox.stream(limit),
					this.outbox.counter(limit, name));
			return this.runner.execute(RESET, keys, args.toArray(String[]::new)) > 0;
		}

	}

}
