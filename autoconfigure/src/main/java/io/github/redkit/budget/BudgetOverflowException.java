package io.github.redkit.budget;

/**
 * A refund would take a budget's balance past {@link Budgets#MAX_AMOUNT}, the largest
 * amount Redkit keeps exact; nothing was changed.
 */
public class BudgetOverflowException extends RuntimeException {

	private final String budgetId;

	/**
	 * Creates an exception.
	 * @param budgetId the budget
	 * @param amount the refused amount
	 * @param balance the balance, unchanged
	 */
	public BudgetOverflowException(String budgetId, long amount, long balance) {
		super("A refund of " + amount + " would take budget '" + budgetId + "' from " + balance + " past "
				+ Budgets.MAX_AMOUNT + ", the largest amount kept exact; nothing was changed");
		this.budgetId = budgetId;
	}

	/**
	 * The budget.
	 * @return its id
	 */
	public String getBudgetId() {
		return this.budgetId;
	}

}
