package io.github.redkit.faults;

import java.lang.reflect.Method;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.budget.Budgets;
import io.github.redkit.budget.SpendResult;
import io.github.redkit.faults.BudgetScenario.Breakage;

/**
 * Breaks the budgets of an instance on purpose ({@code faults.broken-budgets}), so that a
 * test can show the checker catching a broken build. The reactive face is built on this
 * bean, so it breaks too.
 */
class BrokenBudgets extends BrokenBuild<Breakage> {

	private final Set<String> seen = ConcurrentHashMap.newKeySet();

	private final AtomicLong count = new AtomicLong();

	BrokenBudgets() {
		super("faults.broken-budgets", Breakage.class, Budgets.class);
	}

	@Override
	Object call(Object bean, Method method, Object[] args) throws Throwable {
		boolean spendWithId = method.getName().startsWith("spend") && args != null && args.length == 3;
		if (broken(Breakage.IGNORED_ID) && spendWithId && !this.seen.add((String) args[2])
				&& this.count.incrementAndGet() % 5 == 0) {
			// the retry goes out as a new spend
			args = new Object[] { args[0], args[1], args[2] + "-again" + this.count.get() };
		}
		Object answer = invoke(bean, method, args);
		return (broken(Breakage.OVER_SPEND) && method.getName().startsWith("spend"))
				? bend(answer, (value) -> (value instanceof SpendResult spent) ? overSpent(spent) : value) : answer;
	}

	private SpendResult overSpent(SpendResult spent) {
		return (!spent.applied() && this.count.incrementAndGet() % 3 == 0) ? new SpendResult(true, spent.remaining())
				: spent;
	}

}
