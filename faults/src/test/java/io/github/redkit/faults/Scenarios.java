package io.github.redkit.faults;

import java.util.List;
import java.util.function.Supplier;

/**
 * Every scenario, for the soak: each capability adds its own here.
 */
final class Scenarios {

	static final List<Supplier<? extends Scenario>> ALL = List.of(RateLimitScenario::new, ConcurrencyLimitScenario::new,
			LockScenario::new, IdempotentStepScenario::new, BudgetScenario::new, QueueScenario::new,
			QueueScenario::onStreams, ControlStateScenario::new, RegionScenario::new);

	private Scenarios() {
	}

}
