package io.github.redkit.autoconfigure.budget;

import io.github.redkit.autoconfigure.DurationChecks;

/**
 * Checks {@link BudgetProperties} once at start-up; a value that cannot work fails
 * start-up with a message naming its property.
 */
final class BudgetPropertiesMapper {

	private static final String PREFIX = "redkit.budget";

	private BudgetPropertiesMapper() {
	}

	static BudgetProperties checked(BudgetProperties properties) {
		DurationChecks.positive(properties.getOperationTtl(), PREFIX + ".operation-ttl");
		DurationChecks.positive(properties.getTimeout(), PREFIX + ".timeout");
		return properties;
	}

}
