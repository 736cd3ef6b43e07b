package io.github.redkit.autoconfigure.concurrency;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.redkit.autoconfigure.DurationChecks;
import io.github.redkit.concurrency.ConcurrencyPolicy;
import io.github.redkit.concurrency.internal.ConcurrencyLimitSettings;

/**
 * Turns {@link ConcurrencyLimitProperties} into settings and policies, once at start-up;
 * a value that cannot work fails start-up with a message naming its property.
 */
final class ConcurrencyLimitPropertiesMapper {

	private static final String PREFIX = "redkit.concurrency-limit";

	private ConcurrencyLimitPropertiesMapper() {
	}

	static ConcurrencyLimitSettings settings(ConcurrencyLimitProperties properties) {
		DurationChecks.positive(properties.getTimeout(), PREFIX + ".timeout");
		DurationChecks.notNegative(properties.getFailureCooldown(), PREFIX + ".failure-cooldown");
		return new ConcurrencyLimitSettings(properties.getFailureMode(), properties.getTimeout(),
				properties.getFailureCooldown());
	}

	static Map<String, ConcurrencyPolicy> policies(ConcurrencyLimitProperties properties) {
		Map<String, ConcurrencyPolicy> policies = new LinkedHashMap<>();
		properties.getLimits().forEach((name, limit) -> {
			String property = PREFIX + ".limits." + name;
			if (limit.getLimit() <= 0) {
				throw new IllegalArgumentException(property + ".limit must be > 0 (was " + limit.getLimit() + ")");
			}
			DurationChecks.positive(limit.getLease(), property + ".lease");
			policies.put(name, new ConcurrencyPolicy(limit.getLimit(), limit.getLease()));
		});
		return policies;
	}

}
