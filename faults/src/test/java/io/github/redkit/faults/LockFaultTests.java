package io.github.redkit.faults;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import io.github.redkit.testsupport.RedisBinary;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Locks under random faults, and the checker catching a broken build: judged on a
 * recorded run in the CI, live in the soak. The CI's live run is seed 8, which found a
 * defect; seed 2 (on Redis, Valkey 8.1 and Valkey 9.1) runs in the soak.
 */
class LockFaultTests {

	@Tag("soak")
	@ParameterizedTest
	@ValueSource(longs = { 2 })
	void fencingTokensAndExclusionHoldUnderTheSeedsFaults(long seed) {
		Faults.check(LockScenario::new, seed);
	}

	@Tag("soak")
	@Test
	void fencingTokensAndExclusionHoldOnValkeyWhereAReleaseIsOneSetIfEqual() {
		Optional<Path> valkey = RedisBinary.named("valkey-8");
		assumeTrue(valkey.isPresent(), "valkey-8 is not on this machine (.ci/servers fetches it)");
		Faults.check(() -> new LockScenario(valkey), 2);
	}

	@Tag("soak")
	@Test
	void fencingTokensAndExclusionHoldOnValkey9() {
		Optional<Path> valkey = RedisBinary.named("valkey-9");
		assumeTrue(valkey.isPresent(), "valkey-9 is not on this machine (.ci/servers fetches it)");
		Faults.check(() -> new LockScenario(valkey), 2);
	}

	/**
	 * Seed 8 once showed two holders of {@code k1} that both knew they held it: one whose
	 * lease was set just before a clock step forward (so it ran out at once) had entered
	 * just after the step, and the checker judged it as a holder of the new epoch; it is
	 * now placed by its acquisition, as the docs' "a holder across a clock step is not
	 * judged" says. Kept: it fails about one run in six with the old checker.
	 */
	@Test
	void seed8AHolderWhoseLeaseWasSetJustBeforeAClockStepForward() {
		Faults.check(LockScenario::new, 8);
	}

	/**
	 * Two holders of one key that both knew they held it, the second acquired 150 ms
	 * after the first, across a step of Redis' clock (a recorded history): the docs
	 * excuse a step forward, which ends a lease set before it early, and not a step back,
	 * which only makes it last longer.
	 */
	@ParameterizedTest
	@ValueSource(longs = { -2000, 2000 })
	void theCheckerExcusesTwoHoldersAcrossAClockStepForwardOnly(long step) {
		long ms = 1_000_000;
		History history = new History();
		history.add(new Op(0, "hold", "k0", 1, 2 * ms, 300 * ms, Outcome.OK, new LockScenario.Held(1, 0)));
		history.add(new Op(1, "hold", "k0", 2, 200 * ms, 250 * ms, Outcome.OK, new LockScenario.Held(2, 150 * ms)));
		history.fault(new FaultRecord(new FaultEvent(0, Fault.CLOCK_JUMP, 0, 0, step), 100 * ms, 101 * ms));
		List<String> violations = LockChecker.check(history, List.of());
		if (step > 0) {
			assertThat(violations).isEmpty();
		}
		else {
			assertThat(violations).singleElement()
				.satisfies((violation) -> assertThat(violation).contains("two holders both knew they held it"));
		}
	}

	@ParameterizedTest
	@EnumSource(value = LockScenario.Breakage.class, names = { "NONE", "REPLAY_NOT_RECOGNISED" },
			mode = EnumSource.Mode.EXCLUDE)
	void theCheckerCatchesABrokenBuild(LockScenario.Breakage breakage) {
		assertCaught(breakage, Recording.judge(recording(breakage), new LockScenario(breakage)));
	}

	@Tag("soak")
	@ParameterizedTest
	@EnumSource(value = LockScenario.Breakage.class, names = { "NONE", "REPLAY_NOT_RECOGNISED" },
			mode = EnumSource.Mode.EXCLUDE)
	void theCheckerCatchesABrokenBuildLive(LockScenario.Breakage breakage) {
		// a release that deletes whoever holds shows only when it lands while another
		// holder still holds and a third acquires: about half of 3 s runs see it (CI's
		// three in a row saw none), so up to six of 5 s; the one that caught it is
		// recorded
		FaultRun.Result result = null;
		for (int run = 0; run < 6 && (result == null || result.violations().isEmpty()); run++) {
			result = Recording.run(recording(breakage), () -> new LockScenario(breakage),
					new Schedule(7 + run, 5000, List.of()));
		}
		assertCaught(breakage, result.violations());
	}

	private static String recording(LockScenario.Breakage breakage) {
		return "locks-" + breakage;
	}

	private static void assertCaught(LockScenario.Breakage breakage, List<String> violations) {
		assertThat(violations).as("violations found in a build broken with %s", breakage).isNotEmpty();
	}

}
