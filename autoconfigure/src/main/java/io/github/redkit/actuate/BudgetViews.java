package io.github.redkit.actuate;

import java.util.Map;

import io.github.redkit.budget.BudgetNotFoundException;
import io.github.redkit.budget.Budgets;
import org.jspecify.annotations.Nullable;

/**
 * Budgets: the balance of one budget, after expired reservations returned their money.
 */
public class BudgetViews {

	private final Budgets budgets;

	/**
	 * Creates the views.
	 * @param budgets the budgets
	 */
	public BudgetViews(Budgets budgets) {
		this.budgets = budgets;
	}

	/**
	 * The balance of a budget.
	 * @param id the budget
	 * @return its balance, or {@code null} when it does not exist
	 */
	public @Nullable Map<String, Object> remaining(String id) {
		try {
			return Map.of("budget", id, "remaining", this.budgets.remaining(id));
		}
		catch (BudgetNotFoundException ex) {
			return null;
		}
	}

}
