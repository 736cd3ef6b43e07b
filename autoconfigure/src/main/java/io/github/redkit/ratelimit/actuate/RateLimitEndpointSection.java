package io.github.redkit.ratelimit.actuate;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redkit.actuate.RedkitEndpointSection;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitUsage;
import io.github.redkit.ratelimit.RateLimiter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The {@code ratelimits} section of the {@code redkit} endpoint: the configured policies
 * (in the summary), an identifier's usage per window at {@code ratelimits/{limit}/{key}}
 * (read without consuming, see {@link RateLimitUsage}) and, with {@code DELETE}, the
 * reset of its counters. A limit marked global is read and reset where it counts
 * ({@link GlobalRateLimitCounters}): its usage is every region's calls that this region
 * has received, and its reset zeroes them here and, once replicated, in every region.
 */
public final class RateLimitEndpointSection implements RedkitEndpointSection, Ordered {

	/** The first of the capabilities' sections. */
	public static final int ORDER = 100;

	private static final Log logger = LogFactory.getLog(RateLimitEndpointSection.class);

	private final RateLimiter rateLimiter;

	private final Collection<String> limitNames;

	private final RedisConnectionFactory connectionFactory;

	private final RedisKeyspace keyspace;

	private final @Nullable GlobalRateLimitCounters global;

	/**
	 * Creates the section.
	 * @param rateLimiter the rate limiter
	 * @param limitNames the configured limits
	 * @param connectionFactory the connection factory
	 * @param keyspace the keyspace
	 * @param global where the limits marked global count, {@code null} without any
	 */
	public RateLimitEndpointSection(RateLimiter rateLimiter, Collection<String> limitNames,
			RedisConnectionFactory connectionFactory, RedisKeyspace keyspace,
			@Nullable GlobalRateLimitCounters global) {
		this.rateLimiter = rateLimiter;
		this.limitNames = List.copyOf(limitNames);
		this.connectionFactory = connectionFactory;
		this.keyspace = keyspace;
		this.global = global;
	}

	@Override
	public String name() {
		return "ratelimits";
	}

	@Override
	public String capability() {
		return "rate-limit";
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	/**
	 * The configured policies, by limit name, as {@code rateLimits}.
	 * @return the summary's entry
	 */
	@Override
	public Map<String, Object> summary() {
		Map<String, Object> policies = new LinkedHashMap<>();
		for (String name : this.limitNames) {
			this.rateLimiter.policy(name).ifPresent((policy) -> policies.put(name, describe(policy)));
		}
		return Map.of("rateLimits", policies);
	}

	/**
	 * {@code ratelimits/{limit}/{key}}: an identifier's usage of a limit, per window (the
	 * identifier is every segment after the limit, joined with {@code /}).
	 */
	@Override
	public @Nullable Object read(List<String> path, @Nullable Integer offset, @Nullable Integer count) {
		return (path.size() > 1) ? usage(path.get(0), identifier(path)) : null;
	}

	/**
	 * {@code ratelimits/{limit}/{key}}: resets an identifier's counters of a limit.
	 */
	@Override
	public @Nullable Object delete(List<String> path, String operator) {
		if (path.size() < 2) {
			return null;
		}
		Boolean reset = reset(path.get(0), identifier(path), operator);
		return (reset != null) ? Map.of("reset", reset) : null;
	}

	private static String identifier(List<String> path) {
		return String.join("/", path.subList(1, path.size()));
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
		GlobalRateLimitCounters global = global(limit);
		List<RateLimitUsage.Window> windows = (global != null) ? global.usage(limit, policy, key)
				: localUsage(limit, policy, key);
		Map<String, Object> usage = new LinkedHashMap<>();
		usage.put("limit", limit);
		usage.put("key", key);
		usage.put("algorithm", policy.algorithm().id());
		if (global != null) {
			usage.put("global", true);
		}
		usage.put("windows", windows.stream().map(RateLimitEndpointSection::describe).toList());
		return usage;
	}

	private List<RateLimitUsage.Window> localUsage(String limit, RateLimitPolicy policy, String key) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return RateLimitUsage.read(connection, RateLimitUsage.key(this.keyspace, limit, policy, key), policy);
		}
	}

	/**
	 * Resets an identifier's counters of a limit: deletes them, or, for a limit marked
	 * global, zeroes them where they count.
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
		GlobalRateLimitCounters global = global(limit);
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

	private @Nullable GlobalRateLimitCounters global(String limit) {
		GlobalRateLimitCounters global = this.global;
		return (global != null && global.covers(limit)) ? global : null;
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
