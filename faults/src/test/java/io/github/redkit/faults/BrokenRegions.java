package io.github.redkit.faults;

import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.faults.RegionScenario.Breakage;
import io.github.redkit.region.RegionalBudgets.RegionalSpend;
import io.github.redkit.region.RegionalBudgets;
import io.github.redkit.region.RegionalCounters;

/**
 * Breaks the regional counters or budgets of an instance on purpose
 * ({@code faults.broken}), so that a test can show each checker catching a broken build.
 */
class BrokenRegions extends BrokenBuild<Breakage> {

	private final AtomicLong calls = new AtomicLong();

	BrokenRegions() {
		super("faults.broken", Breakage.class, RegionalCounters.class, RegionalBudgets.class);
	}

	@Override
	Object call(Object bean, Method method, Object[] args) throws Throwable {
		return breakIt(bean, method, args, invoke(bean, method, args));
	}

	private Object breakIt(Object bean, Method method, Object[] args, Object result) throws Throwable {
		String name = method.getName();
		boolean fifth = this.calls.incrementAndGet() % 5 == 0;
		if (broken(Breakage.DOUBLE_INCREMENT) && name.equals("increment") && fifth) {
			return invoke(bean, method, args);
		}
		if (result instanceof RegionalSpend spend && !spend.spent()
				&& ((broken(Breakage.ALLOTTED_PAST_ZERO) && RegionScenario.ALLOTTED.equals(args[0]))
						|| (broken(Breakage.SHARED_PAST_BOUND) && RegionScenario.SHARED.equals(args[0])))) {
			return new RegionalSpend(true, spend.remaining(), false);
		}
		if ((broken(Breakage.GIVE_TWICE) && name.equals("give"))
				|| (broken(Breakage.BORROW_TWICE) && name.equals("borrow"))) {
			Object[] again = args.clone();
			again[again.length - 1] = args[args.length - 1] + "-again";
			invoke(bean, method, again);
		}
		return result;
	}

}
