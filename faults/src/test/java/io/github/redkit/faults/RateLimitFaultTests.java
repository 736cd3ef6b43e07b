package io.github.redkit.faults;

import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rate limits under random faults, and the checker catching a broken build: judged on a
 * recorded run in the CI, live in the soak. The CI's live run is the soak's seed that
 * found a defect; seed 8 runs in the soak.
 */
class RateLimitFaultTests {

	@Tag("soak")
	@ParameterizedTest
	@ValueSource(longs = { 8 })
	void everyBoundHoldsUnderTheSeedsFaults(long seed) {
		Faults.check(RateLimitScenario::new, seed);
	}

	/**
	 * A soak's seed: a failover 33 ms after calls the master acknowledged, which had not
	 * reached the replica yet; the harness took them as kept and saw nine calls in a
	 * window of eight. The nemesis now lets the replica catch up with what was
	 * acknowledged before it cuts it off, in the master's replication history: this
	 * failover comes 0.9 s after a restart on a snapshot, and the replica, not synced
	 * again, stood further in the old history (issue 43,
	 * {@code NemesisTests#aFailoverSoonAfterARestartLosesOnlyWhatTheMasterAcknowledgedAfterTheCut}).
	 */
	@Test
	void aFailoverRightAfterAcknowledgedCallsLosesOnlyWhatCameAfterTheCut() {
		// with its cuts after a write: a decision or a charge Lettuce would send again is
		// dropped and decided by the failure mode, a give-back keeps its marker (issue
		// 43)
		Faults.check(RateLimitScenario::new, 562592080739008158L, 10_000);
	}

	@ParameterizedTest
	@EnumSource(value = RateLimitScenario.Breakage.class, names = { "NONE", "APPLIED_TWICE" },
			mode = EnumSource.Mode.EXCLUDE)
	void theCheckerCatchesABrokenBuild(RateLimitScenario.Breakage breakage) {
		assertCaught(breakage, Recording.judge(recording(breakage), new RateLimitScenario(breakage)));
	}

	@Tag("soak")
	@ParameterizedTest
	@EnumSource(value = RateLimitScenario.Breakage.class, names = { "NONE", "APPLIED_TWICE" },
			mode = EnumSource.Mode.EXCLUDE)
	void theCheckerCatchesABrokenBuildLive(RateLimitScenario.Breakage breakage) {
		assertCaught(breakage,
				Recording
					.run(recording(breakage), () -> new RateLimitScenario(breakage), new Schedule(7, 3000, List.of()))
					.violations());
	}

	private static String recording(RateLimitScenario.Breakage breakage) {
		return "rate-limits-" + breakage;
	}

	private static void assertCaught(RateLimitScenario.Breakage breakage, List<String> violations) {
		assertThat(violations).as("violations found in a build broken with %s", breakage).isNotEmpty();
	}

}
