package io.github.redkit.budget.actuate;

import java.util.List;
import java.util.Map;

import io.github.redkit.actuate.RedkitEndpointSection;
import io.github.redkit.budget.BudgetNotFoundException;
import io.github.redkit.budget.Budgets;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;

/**
 * The {@code budgets} section of the {@code redkit} endpoint: at {@code budgets/{id}},
 * the balance of one budget, after expired reservations returned their money.
 */
public final class BudgetEndpointSection implements RedkitEndpointSection, Ordered {

	/** After queues. */
	public static final int ORDER = 400;

	private final Budgets budgets;

	/**
	 * Creates the section.
	 * @param budgets the budgets
	 */
	public BudgetEndpointSection(Budgets budgets) {
		this.budgets = budgets;
	}

	@Override
	public String name() {
		return "budgets";
	}

	@Override
	public String capability() {
		return "budget";
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	/**
	 * {@code budgets/{id}}: the balance of a budget.
	 */
	@Override
	public @Nullable Object read(List<String> path, @Nullable Integer offset, @Nullable Integer count) {
		return (path.size() == 1) ? remaining(path.get(0)) : null;
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
