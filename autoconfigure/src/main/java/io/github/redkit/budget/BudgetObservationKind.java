package io.github.redkit.budget;

import io.github.redkit.core.RedkitObservationKind;

/**
 * What budgets observe.
 */
public final class BudgetObservationKind {

	/**
	 * A budget change, named by its command (create, spend, refund, reserve, commit...),
	 * never by the budget.
	 */
	public static final RedkitObservationKind APPLY = new RedkitObservationKind("redkit.budget.apply",
			"redkit.operation");

	private BudgetObservationKind() {
	}

}
