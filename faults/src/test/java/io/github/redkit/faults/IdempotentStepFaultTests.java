package io.github.redkit.faults;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Idempotent steps under random faults (the CI's seeds), and the checker catching a
 * broken build.
 */
class IdempotentStepFaultTests {

	@ParameterizedTest
	@ValueSource(longs = { 8 })
	void everyStepHoldsUnderTheSeedsFaults(long seed) {
		Faults.check(IdempotentStepScenario::new, seed);
	}

	@ParameterizedTest
	@EnumSource(value = IdempotentStepScenario.Breakage.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
	void theCheckerCatchesABrokenBuild(IdempotentStepScenario.Breakage breakage) {
		FaultRun.Result result = FaultRun.run(() -> new IdempotentStepScenario(breakage),
				new Schedule(7, 3000, List.of()));
		assertThat(result.violations()).as("violations found in a build broken with %s", breakage).isNotEmpty();
	}

}
