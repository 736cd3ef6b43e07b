package io.github.redkit.faults;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Queues under random faults (the CI's seeds), and the checker catching broken builds.
 */
class QueueFaultTests {

	@ParameterizedTest
	@ValueSource(longs = { 2 })
	void everyMessageIsDeliveredOrDeadLetteredUnderTheSeedsFaults(long seed) {
		Faults.check(QueueScenario::new, seed);
	}

	@ParameterizedTest
	@EnumSource(value = QueueScenario.Breakage.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
	void theCheckerCatchesABrokenBuild(QueueScenario.Breakage breakage) {
		FaultRun.Result result = FaultRun.run(() -> new QueueScenario(breakage), new Schedule(7, 3000, List.of()));
		String expected = (breakage == QueueScenario.Breakage.DROP_SENDS) ? "neither handled nor dead-lettered"
				: "taken again while its holder still had it";
		assertThat(result.violations()).as("violations found in a build broken with %s", breakage)
			.anySatisfy((violation) -> assertThat(violation).contains(expected));
	}

}
