package io.github.redkit.autoconfigure.idempotency;

import io.github.redkit.autoconfigure.DurationChecks;
import io.github.redkit.idempotency.internal.IdempotencySettings;

/**
 * Turns {@link IdempotencyProperties} into {@link IdempotencySettings}, once at start-up;
 * a value that cannot work fails start-up with a message naming its property.
 */
final class IdempotencyPropertiesMapper {

	private static final String PREFIX = "redkit.idempotency";

	private IdempotencyPropertiesMapper() {
	}

	static IdempotencySettings settings(IdempotencyProperties properties) {
		DurationChecks.positive(properties.getTtl(), PREFIX + ".ttl");
		DurationChecks.positive(properties.getInProgressLease(), PREFIX + ".in-progress-lease");
		DurationChecks.positive(properties.getTimeout(), PREFIX + ".timeout");
		return new IdempotencySettings(properties.getTtl(), properties.getInProgressLease(), properties.getTimeout());
	}

}
