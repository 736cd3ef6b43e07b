package io.github.redkit.upgrade;

import java.util.concurrent.ThreadLocalRandom;

import io.github.redkit.budget.BudgetNotFoundException;
import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.SpendResult;
import org.jspecify.annotations.Nullable;

/**
 * A budget deleted, created and replaced while it is spent, from every instance: the
 * {@code budget_apply} commands changed since 0.1.0 (a create and a delete carry an id
 * generated per call in this build) racing the other version's spends. Each spend is of
 * one unit, written with the balance it answered, or {@code missing} when the budget was
 * deleted.
 */
final class BudgetCycleLoad {

	static final String BUDGET = "upgrade-budget-cycle";

	static final long AMOUNT = 1000;

	private final Budgets budgets;

	private final HistoryLog history;

	BudgetCycleLoad(Budgets budgets, HistoryLog history) {
		this.budgets = budgets;
		this.history = history;
	}

	void step() {
		int choice = ThreadLocalRandom.current().nextInt(10);
		if (choice < 6) {
			this.history.call("budget-cycle", "spend", BUDGET, this::spend, (result, fields) -> {
				if (result == null) {
					fields.put("outcome", "missing");
					return;
				}
				fields.put("outcome", result.applied() ? "ok" : "refused");
				fields.put("remaining", result.remaining());
			});
		}
		else if (choice < 8) {
			this.history.call("budget-cycle", "replace", BUDGET, () -> this.budgets.create(BUDGET, AMOUNT, true),
					(created, fields) -> {
						fields.put("outcome", "ok");
						fields.put("created", created);
					});
		}
		else if (choice < 9) {
			this.history.call("budget-cycle", "create", BUDGET, () -> this.budgets.create(BUDGET, AMOUNT),
					(created, fields) -> {
						fields.put("outcome", "ok");
						fields.put("created", created);
					});
		}
		else {
			this.history.call("budget-cycle", "delete", BUDGET, () -> this.budgets.delete(BUDGET),
					(existed, fields) -> {
						fields.put("outcome", "ok");
						fields.put("existed", existed);
					});
		}
	}

	private @Nullable SpendResult spend() {
		try {
			return this.budgets.spend(BUDGET, 1);
		}
		catch (BudgetNotFoundException ex) {
			return null;
		}
	}

}
