package io.github.redkit.faults;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.redkit.faults.RegionScenario.Breakage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several regions under random faults, and each checker catching a broken build: one run
 * breaks counters and both budgets' spends at once (their violations tell them apart),
 * one a give and one a borrow; judged on a recorded run in the CI, live in the soak. The
 * CI's live run is seed 1, which found a defect; seed 2 runs in the soak.
 */
class RegionFaultTests {

	private static final Set<Breakage> SPENDS = EnumSet.of(Breakage.DOUBLE_INCREMENT, Breakage.ALLOTTED_PAST_ZERO,
			Breakage.SHARED_PAST_BOUND);

	private static final Set<Breakage> GIVE = EnumSet.of(Breakage.GIVE_TWICE);

	private static final Set<Breakage> BORROW = EnumSet.of(Breakage.BORROW_TWICE);

	@Tag("soak")
	@Test
	void everyRegionalPromiseHoldsUnderTheSeedsFaults() {
		Faults.check(RegionScenario::new, 2);
	}

	/**
	 * Seed 1 restarts {@code eu}'s Redis on an older snapshot: until a peer notices, the
	 * region spends from its older slot, spends it had already shipped included, and once
	 * it recovered its share converged below zero (-21 of an allotted budget). Now the
	 * incarnation names the Redis process that set it: a Redis started again recovers
	 * from its peers before it changes a budget.
	 */
	@Test
	void aRegionBackOnAnOlderSnapshotSpendsNothingTwice() {
		// with its cuts after a write too: it passed on the harness' branch, before
		// increments were applied once (issue 43)
		Faults.check(RegionScenario::new, 1);
	}

	/**
	 * Seed 1's run of 01:58 (session 37): {@code ap} borrowed 4 while {@code eu}'s Redis
	 * was frozen; the ask to {@code eu} timed out, {@code us} gave 1, and {@code eu} lent
	 * the 4 asked when it resumed, so {@code ap} held 5 of a borrow of 4, as the docs say
	 * a late ask may. The checker allowed 3 more than the answer, and read {@code ap}'s
	 * share 1 past its bound.
	 */
	@Test
	void aBorrowWhoseAskTimedOutMayHoldWhatTheLateLenderGaveBeyondTheAmount() {
		assertThat(Recording.judge("regions-seed1-late-lend", new RegionScenario())).isEmpty();
	}

	@Test
	void theCheckersCatchDoubleIncrementsAndSpendsPastTheBudget() {
		assertDoubleIncrementsAndSpendsPastTheBudgetCaught(recorded(SPENDS));
	}

	@Test
	void theCheckerCatchesAGiveMadeTwice() {
		assertShareCaught(recorded(GIVE));
	}

	@Test
	void theCheckerCatchesABorrowMadeTwice() {
		assertShareCaught(recorded(BORROW));
	}

	@Tag("soak")
	@Test
	void theCheckersCatchBrokenBuildsLive() {
		assertDoubleIncrementsAndSpendsPastTheBudgetCaught(live(SPENDS));
		assertShareCaught(live(GIVE));
		assertShareCaught(live(BORROW));
	}

	private static void assertDoubleIncrementsAndSpendsPastTheBudgetCaught(List<String> violations) {
		assertThat(violations).anyMatch((violation) -> violation.startsWith("counter "))
			.anyMatch((violation) -> violation.startsWith("allotted budget: ") && violation.contains(" spent"))
			.anyMatch((violation) -> violation.startsWith("shared budget: "));
	}

	private static void assertShareCaught(List<String> violations) {
		assertThat(violations).anyMatch((violation) -> violation.contains("share"));
	}

	private static List<String> recorded(Set<Breakage> breakages) {
		return Recording.judge(recording(breakages), new RegionScenario(breakages));
	}

	private static List<String> live(Set<Breakage> breakages) {
		FaultRun.Result result = Recording.run(recording(breakages), () -> new RegionScenario(breakages),
				new Schedule(7, 3000, List.of()));
		System.out.println("Regions broken with " + breakages + ": " + result.violations().size()
				+ " violations, first " + result.violations().stream().limit(3).toList());
		return result.violations();
	}

	private static String recording(Set<Breakage> breakages) {
		return "regions-" + breakages.stream().map(Breakage::name).sorted().collect(Collectors.joining("+"));
	}

}
