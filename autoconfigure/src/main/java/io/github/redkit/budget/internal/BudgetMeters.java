package io.github.redkit.budget.internal;

import io.github.redkit.core.RedkitMeter;

/**
 * The meters of budgets, recorded through {@link io.github.redkit.core.RedkitMetrics}.
 * Deliberately without the budget id: budgets are many, tags must be few.
 */
final class BudgetMeters {

	/**
	 * Budget changes; tags {@code operation} (spend, refund, reserve, commit, release)
	 * and {@code outcome} (applied, refused, replayed, unavailable).
	 */
	static final RedkitMeter CHANGES = RedkitMeter.counter("redkit.budget.changes",
			"Budget changes by operation and outcome");

	private BudgetMeters() {
	}

}
