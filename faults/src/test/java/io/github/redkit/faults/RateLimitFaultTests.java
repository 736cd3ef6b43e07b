package io.github.redkit.faults;

import org.junit.jupiter.api.Test;
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

	/**
	 * A soak's seed: a failover 33 ms after calls the master acknowledged, which had not
	 * reached the replica yet; the harness took them as kept and saw nine calls in a
	 * window of eight. The nemesis now lets the replica catch up with what was
	 * acknowledged before it cuts it off.
	 */
	@Test
	void aFailoverRightAfterAcknowledgedCallsLosesOnlyWhatCameAfterTheCut() {
		Faults.check(RateLimitScenario::new, 562592080739008158L, 10_000);
	}

	@ParameterizedTest
	@EnumSource(value = RateLimitScenario.Breakage.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
	void theCheckerCatchesABrokenBuild(RateLimitScenario.Breakage breakage) {
		FaultRun.Result result = FaultRun.run(() -> new RateLimitScenario(breakage),
				new Schedule(7, 3000, java.util.List.of()));
		assertThat(result.violations()).as("violations found in a build broken with %s", breakage).isNotEmpty();
	}

}
