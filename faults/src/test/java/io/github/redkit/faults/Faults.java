package io.github.redkit.faults;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.fail;

/**
 * Runs a scenario under a seed's schedule and fails with what a person needs to reproduce
 * it: the seed, the schedule, the smallest schedule that still fails, and the violations
 * with the operations that show them.
 */
final class Faults {

	/** How long the clients run under one seed in the CI. */
	static final long CI_MILLIS = 6000;

	/** Where a failing run is recorded. */
	private static final Path KEPT = Path.of("target", "faults");

	/** At most this many runs to shrink a failing schedule. */
	private static final int SHRINK_RUNS = 6;

	private Faults() {
	}

	/**
	 * Runs one seed and fails on any violation.
	 * @param scenarios makes the scenario
	 * @param seed the seed
	 * @return the run, for a test that looks further
	 */
	static FaultRun.Result check(Supplier<? extends Scenario> scenarios, long seed) {
		return check(scenarios, seed, CI_MILLIS);
	}

	/**
	 * Runs one seed of a given length (a soak's seed kept as a test) and fails on any
	 * violation.
	 * @param scenarios makes the scenario
	 * @param seed the seed
	 * @param millis how long the clients run
	 * @return the run
	 */
	static FaultRun.Result check(Supplier<? extends Scenario> scenarios, long seed, long millis) {
		return check(scenarios, seed, millis, Set.of());
	}

	/**
	 * Runs one seed without some of its scenario's faults and fails on any violation: the
	 * rest of the schedule is the seed's as it was (a fault left out never moves the
	 * others, see {@link Schedule#generate}).
	 * @param scenarios makes the scenario
	 * @param seed the seed
	 * @param millis how long the clients run
	 * @param leftOut the faults left out
	 * @return the run
	 */
	static FaultRun.Result check(Supplier<? extends Scenario> scenarios, long seed, long millis, Set<Fault> leftOut) {
		Scenario scenario = scenarios.get();
		Schedule schedule = Schedule.generate(seed, millis, scenario.faults());
		for (Fault fault : leftOut) {
			schedule = schedule.withoutFault(fault);
		}
		FaultRun.Result result = FaultRun.run(scenarios, schedule);
		FaultReport.add(result, scenario.guarantee());
		if (result.failed()) {
			Path kept = keep(result, seed);
			Schedule smallest = shrink(scenarios, result.schedule());
			fail(describe(result, smallest) + "\nthe failing run is recorded in " + kept
					+ " (zcat it; Recording judges it again)");
		}
		return result;
	}

	/**
	 * Writes a failing run's history and evidence (a queue's ledger holds each take's
	 * token and message id) to {@code target/faults/}, so that it can be traced: threads
	 * interleave differently on every run, and the next one may not fail.
	 */
	private static Path keep(FaultRun.Result result, long seed) {
		Path file = KEPT.resolve(String.format("failed-%s-seed%d-%d.jsonl.gz", result.capability().replace(' ', '-'),
				seed, System.currentTimeMillis()));
		Recording.write(file, result.scenario(), result);
		return file.toAbsolutePath();
	}

	/**
	 * Drops one fault at a time and keeps each drop after which the run still fails.
	 * Threads interleave differently on every run, so a seed reproduces the schedule and
	 * the clients' choices, not every interleaving: a drop is kept only when the smaller
	 * schedule failed again.
	 */
	static Schedule shrink(Supplier<? extends Scenario> scenarios, Schedule failing) {
		Schedule smallest = failing;
		int runs = 0;
		for (int i = smallest.events().size() - 1; i >= 0 && runs < SHRINK_RUNS; i--) {
			Schedule fewer = smallest.without(i);
			runs++;
			if (FaultRun.run(scenarios, fewer).failed()) {
				smallest = fewer;
			}
		}
		return smallest;
	}

	static String describe(FaultRun.Result result, Schedule smallest) {
		return describe(result, "smallest schedule that failed again: " + smallest);
	}

	/**
	 * Describes a failing run that was not shrunk (the soak goes on to new seeds and
	 * keeps the run instead).
	 */
	static String describeKept(FaultRun.Result result, long seed) {
		return describe(result, "not shrunk; the failing run is recorded in " + keep(result, seed)
				+ " (zcat it; Recording judges it again)");
	}

	private static String describe(FaultRun.Result result, String smallest) {
		return "Violations of " + result.capability() + " under " + result.schedule() + "\n" + smallest + "\n"
				+ "faults as injected:\n  "
				+ result.history().faults().stream().map(FaultRecord::toString).collect(Collectors.joining("\n  "))
				+ "\n" + String.join("\n", limit(result.violations(), 20)) + "\n" + "(" + result.history().ops().size()
				+ " operations; keep the seed as a test once fixed)";
	}

	private static List<String> limit(List<String> violations, int max) {
		return (violations.size() <= max) ? violations : violations.subList(0, max);
	}

}
