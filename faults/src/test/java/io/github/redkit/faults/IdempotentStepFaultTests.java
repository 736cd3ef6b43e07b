package io.github.redkit.faults;

import java.util.List;

import org.junit.jupiter.api.Test;
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

	/**
	 * The soak's seed where a claim answered {@code IN_PROGRESS} though no other claim
	 * could hold the step: a link's connections were cut while the claim was in flight,
	 * its first delivery took the step and its reply was lost, and the client sent it
	 * again, which found the step held (by this very claim). A claim delivered again now
	 * gets {@code CLAIMED} ({@code IdempotencyScriptsTests}).
	 */
	@Test
	void aClaimDeliveredAgainAfterACutIsGrantedNotRefused() {
		Faults.check(IdempotentStepScenario::new, 4204995183281130594L, 10_000);
	}

	@ParameterizedTest
	@EnumSource(value = IdempotentStepScenario.Breakage.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
	void theCheckerCatchesABrokenBuild(IdempotentStepScenario.Breakage breakage) {
		FaultRun.Result result = FaultRun.run(() -> new IdempotentStepScenario(breakage),
				new Schedule(7, 3000, List.of()));
		assertThat(result.violations()).as("violations found in a build broken with %s", breakage).isNotEmpty();
	}

}
