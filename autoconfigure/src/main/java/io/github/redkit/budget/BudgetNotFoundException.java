package io.github.redkit.budget;

/**
 * A budget operation named a budget that does not exist (never created, or deleted).
 */
public class BudgetNotFoundException extends RuntimeException {

	private final String budgetId;

	/**
	 * Creates an exception.
	 * @param budgetId the missing budget
	 */
	public BudgetNotFoundException(String budgetId) {
		super("Budget '" + budgetId + "' does not exist");
		this.budgetId = budgetId;
	}

	/**
	 * The missing budget.
	 * @return its id
	 */
	public String getBudgetId() {
		return this.budgetId;
	}

}
