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

	/**
	 * Batches spent from budgets for their local allowances.
	 */
	static final RedkitMeter ALLOWANCE_BATCHES = RedkitMeter.counter("redkit.budget.allowance.batches",
			"Batches taken from budgets for a local allowance");

	/**
	 * Amounts of local allowances; tag {@code event}: taken (in batches), handed-out (to
	 * spends), given-back (refunded unused when their batch ended).
	 */
	static final RedkitMeter ALLOWANCE_AMOUNTS = RedkitMeter.counter("redkit.budget.allowance.amounts",
			"Amounts of budgets' local allowances: taken, handed out, given back");

	private BudgetMeters() {
	}

}
