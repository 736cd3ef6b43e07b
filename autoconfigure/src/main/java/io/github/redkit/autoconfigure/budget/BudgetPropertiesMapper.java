package io.github.redkit.autoconfigure.budget;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.redkit.autoconfigure.DurationChecks;
import io.github.redkit.budget.internal.BudgetAllowance;

/**
 * Checks {@link BudgetProperties} once at start-up; a value that cannot work fails
 * start-up with a message naming its property.
 */
final class BudgetPropertiesMapper {

	private static final String PREFIX = "redkit.budget";

	private BudgetPropertiesMapper() {
	}

	/**
	 * The local allowances of the budgets that have one.
	 */
	static Map<String, BudgetAllowance> allowances(BudgetProperties properties) {
		Map<String, BudgetAllowance> allowances = new LinkedHashMap<>();
		properties.getLocalAllowances().forEach((budgetId, allowance) -> {
			String property = PREFIX + ".local-allowances." + budgetId;
			if (allowance.getSize() < 1) {
				throw new IllegalArgumentException(
						property + ".size must be at least 1 (was " + allowance.getSize() + ")");
			}
			DurationChecks.positive(allowance.getMaxAge(), property + ".max-age");
			if (allowance.getMaxAge().multipliedBy(2).compareTo(properties.getOperationTtl()) >= 0) {
				// a batch's give-back needs the record of its spend, kept for the
				// operation-ttl
				throw new IllegalArgumentException(property + ".max-age must be less than half of " + PREFIX
						+ ".operation-ttl, " + properties.getOperationTtl() + " (was " + allowance.getMaxAge() + ")");
			}
			allowances.put(budgetId, new BudgetAllowance(allowance.getSize(), allowance.getMaxAge()));
		});
		return allowances;
	}

	static BudgetProperties checked(BudgetProperties properties) {
		DurationChecks.positive(properties.getOperationTtl(), PREFIX + ".operation-ttl");
		DurationChecks.positive(properties.getTimeout(), PREFIX + ".timeout");
		return properties;
	}

}
