package io.github.redkit.faults;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rate limits under random faults (the CI's seeds), and the checker catching a broken
 * build.
 */
class RateLimitFaultTests {

	@ParameterizedTest
	@ValueSource(longs = { 8 })
	void everyBoundHoldsUnderTheSeedsFaults(long seed) {
		Faults.check(RateLimitScenario::new, seed);
	}

	@ParameterizedTest
	@EnumSource(value = RateLimitScenario.Breakage.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
	void theCheckerCatchesABrokenBuild(RateLimitScenario.Breakage breakage) {
		FaultRun.Result result = FaultRun.run(() -> new RateLimitScenario(breakage),
				new Schedule(7, 3000, java.util.List.of()));
		assertThat(result.violations()).as("violations found in a build broken with %s", breakage).isNotEmpty();
	}

}
