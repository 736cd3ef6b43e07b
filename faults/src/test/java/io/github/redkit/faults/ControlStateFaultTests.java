package io.github.redkit.faults;

import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Durable control state under random faults (the CI's seeds), and the checker catching
 * broken builds: judged on a recorded run in the CI, live in the soak.
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
		assertCaught(breakage, Recording.judge(recording(breakage), new ControlStateScenario(breakage)));
	}

	@Tag("soak")
	@ParameterizedTest
	@EnumSource(value = ControlStateScenario.Breakage.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
	void theCheckerCatchesABrokenBuildLive(ControlStateScenario.Breakage breakage) {
		assertCaught(breakage,
				Recording
					.run(recording(breakage), () -> new ControlStateScenario(breakage),
							new Schedule(7, 3000, List.of()))
					.violations());
	}

	private static String recording(ControlStateScenario.Breakage breakage) {
		return "control-state-" + breakage;
	}

	private static void assertCaught(ControlStateScenario.Breakage breakage, List<String> violations) {
		String expected = (breakage == ControlStateScenario.Breakage.STUCK_VIEW) ? "not converged" : "went back";
		assertThat(violations).as("violations found in a build broken with %s", breakage)
			.anySatisfy((violation) -> assertThat(violation).contains(expected));
	}

}
