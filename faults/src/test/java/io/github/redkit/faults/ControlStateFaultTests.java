package io.github.redkit.faults;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Durable control state under random faults (the CI's seeds), and the checker catching
 * broken builds.
 */
class ControlStateFaultTests {

	@ParameterizedTest
	@ValueSource(longs = { 8 })
	void everyInstanceConvergesUnderTheSeedsFaults(long seed) {
		Faults.check(ControlStateScenario::new, seed);
	}

	@ParameterizedTest
	@EnumSource(value = ControlStateScenario.Breakage.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
	void theCheckerCatchesABrokenBuild(ControlStateScenario.Breakage breakage) {
		FaultRun.Result result = FaultRun.run(() -> new ControlStateScenario(breakage),
				new Schedule(7, 3000, List.of()));
		String expected = (breakage == ControlStateScenario.Breakage.STUCK_VIEW) ? "not converged" : "went back";
		assertThat(result.violations()).as("violations found in a build broken with %s", breakage)
			.anySatisfy((violation) -> assertThat(violation).contains(expected));
	}

}
