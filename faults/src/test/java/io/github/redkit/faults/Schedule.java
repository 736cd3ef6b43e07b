package io.github.redkit.faults;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/**
 * What one seed picks: how long the clients run, and the faults, one after another with
 * quiet gaps between them, so that each fault's effect can be told apart.
 *
 * @param seed the seed
 * @param millis how long the clients run
 * @param events the faults in the order they start
 */
record Schedule(long seed, long millis, List<FaultEvent> events) {

	/** Sets the cuts after a write apart from the seed's other choices (issue 43). */
	private static final long CUTS_AFTER_WRITE = 43;

	static Schedule generate(long seed, long millis, Set<Fault> allowed) {
		Random random = new Random(seed);
		List<Fault> faults = new ArrayList<>(allowed);
		// a failover takes seconds (a replica synced again): it comes after the others,
		// so
		// that adding it left every other seed's schedule as it was
		faults.remove(Fault.FAILOVER_BEHIND);
		// so does a cut after a write, which comes from a stream of its own below
		faults.remove(Fault.CUT_AFTER_WRITE);
		faults.sort(null);
		List<FaultEvent> events = new ArrayList<>();
		long at = 300 + random.nextInt(400);
		while (!faults.isEmpty() && at < millis - 800) {
			Fault fault = faults.get(random.nextInt(faults.size()));
			long duration = fault.lasts() ? 150 + random.nextInt(1200) : 0;
			long strength = switch (fault) {
				case LATENCY -> 20 + random.nextInt(250);
				case CLOCK_JUMP -> (random.nextBoolean() ? 1 : -1) * (1000L + random.nextInt(4) * 1000L);
				default -> 0;
			};
			duration = Math.min(duration, millis - 500 - at);
			events.add(new FaultEvent(at, fault, duration, random.nextInt(1000), strength));
			at += duration + 200 + random.nextInt(700);
		}
		if (allowed.contains(Fault.CUT_AFTER_WRITE)) {
			events = cutsAfterWrite(seed, millis, events);
		}
		// java.util.Random's first value barely differs between close seeds
		SplittableRandom failover = new SplittableRandom(seed);
		if (allowed.contains(Fault.FAILOVER_BEHIND) && failover.nextBoolean()) {
			events.add(new FaultEvent(millis + 200, Fault.FAILOVER_BEHIND, 100 + failover.nextInt(500),
					failover.nextInt(1000), 0));
			millis += 3000;
		}
		return new Schedule(seed, millis, List.copyOf(events));
	}

	/**
	 * Adds a cut after a write every 300 to 900 ms, at random links, among the other
	 * faults: instant, it leaves their times as they were (the nemesis injects one
	 * falling within a lasting fault once that fault healed).
	 */
	private static List<FaultEvent> cutsAfterWrite(long seed, long millis, List<FaultEvent> others) {
		SplittableRandom random = new SplittableRandom(seed ^ CUTS_AFTER_WRITE);
		List<FaultEvent> events = new ArrayList<>(others);
		for (long at = 200 + random.nextInt(400); at < millis - 500; at += 300 + random.nextInt(600)) {
			events.add(new FaultEvent(at, Fault.CUT_AFTER_WRITE, 0, random.nextInt(1000), 0));
		}
		events.sort(Comparator.comparingLong(FaultEvent::at));
		return events;
	}

	Schedule without(int index) {
		List<FaultEvent> fewer = new ArrayList<>(this.events);
		fewer.remove(index);
		return new Schedule(this.seed, this.millis, List.copyOf(fewer));
	}

	Schedule withoutFault(Fault fault) {
		return new Schedule(this.seed, this.millis,
				this.events.stream().filter((event) -> event.fault() != fault).toList());
	}

	Set<Fault> faults() {
		return this.events.stream().map(FaultEvent::fault).collect(Collectors.toSet());
	}

	@Override
	public String toString() {
		return "seed " + this.seed + ", " + this.millis + " ms: "
				+ this.events.stream().map(FaultEvent::toString).collect(Collectors.joining("; "));
	}

}
