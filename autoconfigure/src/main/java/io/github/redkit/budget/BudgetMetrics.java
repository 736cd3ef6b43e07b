package io.github.redkit.budget;

/**
 * Receives the outcome of every budget change, for metrics. Deliberately without the
 * budget id: budgets are many, metrics tags must be few.
 */
public interface BudgetMetrics {

	/** Records nothing. */
	BudgetMetrics NONE = (operation, outcome) -> {
	};

	/**
	 * Records one outcome.
	 * @param operation {@code spend}, {@code refund}, {@code reserve}, {@code commit} or
	 * {@code release}
	 * @param outcome {@code applied}, {@code refused}, {@code replayed} or
	 * {@code unavailable}
	 */
	void record(String operation, String outcome);

}
