package io.github.redkit.budget;

import io.github.redkit.core.RedkitObservationKind;

/**
 * What budgets observe.
 */
public enum BudgetObservationKind implements RedkitObservationKind {

	/**
	 * A budget change, named by its command (create, spend, refund, reserve, commit...),
	 * never by the budget.
	 */
	APPLY("redkit.budget.apply");

	private final String observationName;

	BudgetObservationKind(String observationName) {
		this.observationName = observationName;
	}

	@Override
	public String observationName() {
		return this.observationName;
	}

	@Override
	public String nameKey() {
		return "redkit.operation";
	}

}
