package io.github.redkit.faults;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import io.github.redkit.faults.RegionScenario.Breakage;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several regions under random faults (the CI's seeds), and each checker catching a
 * broken build: one run breaks counters and both budgets' spends at once (their
 * violations tell them apart), one a give and one a borrow.
 */
class RegionFaultTests {

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
		Faults.check(RegionScenario::new, 1);
	}

	@Test
	void theCheckersCatchDoubleIncrementsAndSpendsPastTheBudget() {
		List<String> violations = broken(
				EnumSet.of(Breakage.DOUBLE_INCREMENT, Breakage.ALLOTTED_PAST_ZERO, Breakage.SHARED_PAST_BOUND));
		assertThat(violations).anyMatch((violation) -> violation.startsWith("counter "))
			.anyMatch((violation) -> violation.startsWith("allotted budget: ") && violation.contains(" spent"))
			.anyMatch((violation) -> violation.startsWith("shared budget: "));
	}

	@Test
	void theCheckerCatchesAGiveMadeTwice() {
		assertThat(broken(EnumSet.of(Breakage.GIVE_TWICE))).anyMatch((violation) -> violation.contains("share"));
	}

	@Test
	void theCheckerCatchesABorrowMadeTwice() {
		assertThat(broken(EnumSet.of(Breakage.BORROW_TWICE))).anyMatch((violation) -> violation.contains("share"));
	}

	private static List<String> broken(Set<Breakage> breakages) {
		FaultRun.Result result = FaultRun.run(() -> new RegionScenario(breakages), new Schedule(7, 3000, List.of()));
		System.out.println("Regions broken with " + breakages + ": " + result.violations().size()
				+ " violations, first " + result.violations().stream().limit(3).toList());
		return result.violations();
	}

}
