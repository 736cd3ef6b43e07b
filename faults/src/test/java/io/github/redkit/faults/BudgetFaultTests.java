package io.github.redkit.faults;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Budgets and reservations under random faults (the CI's seeds), and the checker catching
 * a broken build.
 */
class BudgetFaultTests {

	@ParameterizedTest
	@ValueSource(longs = { 2 })
	void everyBalanceHoldsUnderTheSeedsFaults(long seed) {
		Faults.check(BudgetScenario::new, seed);
	}

	@ParameterizedTest
	@EnumSource(value = BudgetScenario.Breakage.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
	void theCheckerCatchesABrokenBuild(BudgetScenario.Breakage breakage) {
		FaultRun.Result result = FaultRun.run(() -> new BudgetScenario(breakage), new Schedule(7, 3000, List.of()));
		assertThat(result.violations()).as("violations found in a build broken with %s", breakage).isNotEmpty();
		String rule = switch (breakage) {
			case GIVEN_BACK_TWICE -> "given back 2 times within one memory";
			case BATCH_REUSED -> "a batch id reused";
			default -> "";
		};
		// the allowance's breakages are caught by their own rule, not by a run that
		// judged nothing
		assertThat(result.violations()).as("violations of a build broken with %s", breakage)
			.anyMatch((violation) -> violation.contains(rule))
			.noneMatch((violation) -> violation.contains("judged no"));
	}

}
