package io.github.redkit.autoconfigure.lock;

import io.github.redkit.autoconfigure.DurationChecks;
import io.github.redkit.lock.LockSettings;

/**
 * Turns {@link LockProperties} into {@link LockSettings}, once at start-up; a value that
 * cannot work fails start-up with a message naming its property.
 */
final class LockPropertiesMapper {

	private static final String PREFIX = "redkit.lock";

	private LockPropertiesMapper() {
	}

	static LockSettings settings(LockProperties properties) {
		DurationChecks.notNegative(properties.getWaitTime(), PREFIX + ".wait-time");
		DurationChecks.positive(properties.getLeaseTime(), PREFIX + ".lease-time");
		DurationChecks.positive(properties.getRedisTimeout(), PREFIX + ".redis-timeout");
		DurationChecks.positive(properties.getRetryInterval(), PREFIX + ".retry-interval");
		return new LockSettings(properties.getLeaseTime(), properties.getRedisTimeout(), properties.getRetryInterval());
	}

}
