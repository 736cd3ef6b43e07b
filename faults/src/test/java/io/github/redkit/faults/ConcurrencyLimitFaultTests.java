package io.github.redkit.faults;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

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
	@ValueSource(longs = { 2 })
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

	/**
	 * Links partitioned past the lease, one instance after another: a holder whose
	 * renewals cannot reach Redis must know its place is gone once its lease ran out
	 * (three holders of a limit of two were inside before the fix, each believing it held
	 * its permit).
	 */
	@Test
	void aHolderWhoseRenewalsCannotReachRedisPastItsLeaseCountsNoMore() {
		List<FaultEvent> partitions = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			partitions.add(new FaultEvent(500 + i * 1500, Fault.PARTITION, 1300, i + 1, 0));
		}
		FaultRun.Result result = FaultRun.run(ConcurrencyLimitScenario::new, new Schedule(1, 6500, partitions));
		assertThat(result.violations()).isEmpty();
	}

}
