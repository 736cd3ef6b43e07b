package io.github.redkit.autoconfigure.ratelimit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redkit.autoconfigure.DurationChecks;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.RateLimitFailureMode;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.internal.LocalAllowance;
import io.github.redkit.ratelimit.internal.LocalRateLimiter;
import io.github.redkit.ratelimit.internal.RateLimitInstances;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Turns {@link RateLimitProperties} into prepared policies, once at start-up; a value
 * that cannot work fails start-up with a message naming its property.
 */
final class RateLimitPropertiesMapper {

	private static final String PREFIX = "redkit.rate-limit";

	private static final String CAFFEINE = "com.github.benmanes.caffeine.cache.Caffeine";

	private RateLimitPropertiesMapper() {
	}

	static Map<String, RateLimitPolicy> policies(RateLimitProperties properties) {
		DurationChecks.positive(properties.getTimeout(), PREFIX + ".timeout");
		DurationChecks.notNegative(properties.getFailureCooldown(), PREFIX + ".failure-cooldown");
		Map<String, RateLimitPolicy> policies = new LinkedHashMap<>();
		properties.getLimits().forEach((name, limit) -> policies.put(name, policy(limit, PREFIX + ".limits." + name)));
		return policies;
	}

	/**
	 * The settings every decision shares.
	 */
	static RateLimitSettings settings(RateLimitProperties properties, @Nullable LocalRateLimiter localLimiter) {
		if (properties.getFailureMode() == RateLimitFailureMode.LOCAL && localLimiter == null) {
			throw new IllegalStateException(PREFIX + ".failure-mode=local needs a LocalRateLimiter bean");
		}
		return new RateLimitSettings(properties.getFailureMode(), properties.getTimeout(),
				properties.getFailureCooldown(),
				(properties.getFailureMode() == RateLimitFailureMode.LOCAL) ? localLimiter : null,
				allowances(properties));
	}

	/**
	 * The local allowances of the limits that have one.
	 */
	static Map<String, LocalAllowance> allowances(RateLimitProperties properties) {
		Map<String, LocalAllowance> allowances = new LinkedHashMap<>();
		properties.getLimits().forEach((name, limit) -> {
			RateLimitProperties.LocalAllowance allowance = limit.getLocalAllowance();
			String property = PREFIX + ".limits." + name + ".local-allowance";
			if (allowance.getSize() < 0) {
				throw new IllegalArgumentException(
						property + ".size must be at least 0 (was " + allowance.getSize() + ")");
			}
			if (allowance.getSize() == 0) {
				return;
			}
			DurationChecks.positive(allowance.getMaxAge(), property + ".max-age");
			LocalAllowance local = new LocalAllowance(allowance.getSize(), allowance.getMaxAge());
			// the rule define() applies at run time too
			local.check(property, policy(limit, PREFIX + ".limits." + name), limit.isGlobal());
			allowances.put(name, local);
		});
		return allowances;
	}

	/**
	 * The instance count of the local failure mode: the configured one, else learnt
	 * through heartbeats.
	 */
	static RateLimitInstances instances(RateLimitProperties properties, RedisScriptRunner runner,
			RedisKeyspace keyspace) {
		RateLimitProperties.Local local = properties.getLocal();
		Integer expected = local.getExpectedInstances();
		if (expected != null) {
			if (expected < 1) {
				throw new IllegalArgumentException(
						PREFIX + ".local.expected-instances must be at least 1 (was " + expected + ")");
			}
			return new RateLimitInstances(expected);
		}
		DurationChecks.positive(local.getHeartbeat(), PREFIX + ".local.heartbeat");
		return new RateLimitInstances(runner, keyspace, local.getHeartbeat(), properties.getTimeout());
	}

	/**
	 * The limiter of the local failure mode, which needs Caffeine on the class path.
	 */
	static LocalRateLimiter localLimiter(RateLimitProperties properties, RateLimitInstances instances,
			@Nullable ClassLoader classLoader) {
		if (!ClassUtils.isPresent(CAFFEINE, classLoader)) {
			throw new IllegalStateException(PREFIX + ".failure-mode=local needs Caffeine on the class path"
					+ " (com.github.ben-manes.caffeine:caffeine, its version managed by Spring Boot)");
		}
		long maxKeys = properties.getLocal().getMaxKeys();
		if (maxKeys < 1) {
			throw new IllegalArgumentException(PREFIX + ".local.max-keys must be at least 1 (was " + maxKeys + ")");
		}
		return new LocalRateLimiter(instances, maxKeys);
	}

	private static RateLimitPolicy policy(RateLimitProperties.Limit limit, String property) {
		if (limit.getWindows() == null || limit.getWindows().isEmpty()) {
			throw new IllegalArgumentException(
					property + ".windows must list at least one window, e.g. windows: [ { limit: 10, period: 1s } ]");
		}
		if (limit.getSubWindows() < 1 || limit.getSubWindows() > RateLimitPolicy.MAX_SUB_WINDOWS) {
			throw new IllegalArgumentException(property + ".sub-windows must be 1 to " + RateLimitPolicy.MAX_SUB_WINDOWS
					+ " (was " + limit.getSubWindows() + ")");
		}
		List<RateLimitWindow> windows = new ArrayList<>();
		for (int i = 0; i < limit.getWindows().size(); i++) {
			RateLimitProperties.Window window = limit.getWindows().get(i);
			String at = property + ".windows[" + i + "]";
			if (window.getLimit() <= 0) {
				throw new IllegalArgumentException(at + ".limit must be > 0 (was " + window.getLimit() + ")");
			}
			if (window.getPeriod() == null || window.getPeriod().toMillis() < 1) {
				throw new IllegalArgumentException(
						at + ".period must be at least 1ms (was " + window.getPeriod() + ")");
			}
			RateLimitWindow counted = RateLimitWindow.of(window.getLimit(), window.getPeriod());
			String problem = limit.getAlgorithm().windowProblem(counted);
			if (problem != null) {
				throw new IllegalArgumentException(at + "." + problem);
			}
			windows.add(counted);
		}
		return new RateLimitPolicy(limit.getAlgorithm(), windows, limit.getSubWindows());
	}

}
