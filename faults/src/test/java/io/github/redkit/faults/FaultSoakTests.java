package io.github.redkit.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The soak: new seeds for every scenario in turn until {@code faults.minutes} have
 * passed, each run a little longer than the CI's; the table of what ran lands in
 * {@code faults/target/faults/reliability.md}. The profile {@code faults-soak} runs it
 * beside the other tests tagged {@code soak} (the former CI seeds, the broken builds
 * live); alone with
 * {@code ./mvnw -B -ntp verify -pl faults -am -Pfaults-soak -Dfaults.minutes=30 -Dtest=FaultSoakTests -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@Tag("soak")
class FaultSoakTests {

	static final long SOAK_MILLIS = 10_000;

	@Test
	void newSeedsUntilTheTimeIsUp() {
		Duration soak = Duration.ofMinutes(Long.getLong("faults.minutes", 0));
		long deadline = System.nanoTime() + soak.toNanos();
		List<String> failures = new ArrayList<>();
		int next = 0;
		while (System.nanoTime() < deadline) {
			Supplier<? extends Scenario> scenarios = Scenarios.ALL.get(next++ % Scenarios.ALL.size());
			Scenario scenario = scenarios.get();
			long seed = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
			Schedule schedule = Schedule.generate(seed, SOAK_MILLIS, scenario.faults());
			FaultRun.Result result;
			try {
				result = FaultRun.run(scenarios, schedule);
			}
			catch (RuntimeException ex) {
				// the rig, not a guarantee: said, and the soak goes on
				String failure = "the run of " + scenario.capability() + " under " + schedule + " failed: " + ex;
				System.out.println(failure);
				failures.add(failure);
				continue;
			}
			FaultReport.add(result, scenario.guarantee());
			if (result.failed()) {
				// said at once: a soak stopped early still shows what it found
				String failure = Faults.describeKept(result, seed);
				System.out.println(failure);
				failures.add(failure);
			}
		}
		assertThat(failures).as("failing seeds").isEmpty();
	}

}
