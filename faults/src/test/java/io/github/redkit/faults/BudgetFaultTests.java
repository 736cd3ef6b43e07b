package io.github.redkit.faults;

import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Budgets and reservations under random faults (the CI's seeds), and the checker catching
 * a broken build: judged on a recorded run in the CI, live in the soak.
 */
class BudgetFaultTests {

	/**
	 * Seed 2 once reported the spends a failover lost as a violation, and its pause and
	 * partition lose batch answers: the capability's live run in the CI.
	 */
	@ParameterizedTest
	@ValueSource(longs = { 2 })
	void everyBalanceHoldsUnderTheSeedsFaults(long seed) {
		Faults.check(BudgetScenario::new, seed);
	}

	@ParameterizedTest
	@EnumSource(value = BudgetScenario.Breakage.class, names = { "NONE", "NO_OPERATION_ID" },
			mode = EnumSource.Mode.EXCLUDE)
	void theCheckerCatchesABrokenBuild(BudgetScenario.Breakage breakage) {
		assertCaught(breakage, Recording.judge(recording(breakage), new BudgetScenario(breakage)));
	}

	@Tag("soak")
	@ParameterizedTest
	@EnumSource(value = BudgetScenario.Breakage.class, names = { "NONE", "NO_OPERATION_ID" },
			mode = EnumSource.Mode.EXCLUDE)
	void theCheckerCatchesABrokenBuildLive(BudgetScenario.Breakage breakage) {
		assertCaught(breakage,
				Recording.run(recording(breakage), () -> new BudgetScenario(breakage), new Schedule(7, 3000, List.of()))
					.violations());
	}

	private static String recording(BudgetScenario.Breakage breakage) {
		return "budgets-" + breakage;
	}

	private static void assertCaught(BudgetScenario.Breakage breakage, List<String> violations) {
		assertThat(violations).as("violations found in a build broken with %s", breakage).isNotEmpty();
		String rule = switch (breakage) {
			case GIVEN_BACK_TWICE -> "given back 2 times within one memory";
			case BATCH_REUSED -> "a batch id reused";
			default -> "";
		};
		// the allowance's breakages are caught by their own rule, not by a run that
		// judged nothing
		assertThat(violations).as("violations of a build broken with %s", breakage)
			.anyMatch((violation) -> violation.contains(rule))
			.noneMatch((violation) -> violation.contains("judged no"));
	}

}
