package io.github.redkit.faults;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Concurrency limits under random faults (the CI's seeds), and the checker catching a
 * broken build.
 */
class ConcurrencyLimitFaultTests {

	@ParameterizedTest
	@ValueSource(longs = { 1, 2 })
	void atMostTheLimitHoldsAndEveryPlaceComesBackUnderTheSeedsFaults(long seed) {
		Faults.check(ConcurrencyLimitScenario::new, seed);
	}

	@ParameterizedTest
	@EnumSource(value = ConcurrencyLimitScenario.Breakage.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
	void theCheckerCatchesABrokenBuild(ConcurrencyLimitScenario.Breakage breakage) {
		FaultRun.Result result = FaultRun.run(() -> new ConcurrencyLimitScenario(breakage),
				new Schedule(7, 3000, List.of()));
		assertThat(result.violations()).as("violations found in a build broken with %s", breakage).isNotEmpty();
	}

}
