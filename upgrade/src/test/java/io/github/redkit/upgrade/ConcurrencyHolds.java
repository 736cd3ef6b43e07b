package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * A concurrency limit's permits, whichever version granted them: per region, never more
 * holds at once than the limit, and some refused (the limit was reached).
 */
final class ConcurrencyHolds {

	static final int LIMIT = 2;

	private ConcurrencyHolds() {
	}

	static List<String> check(List<Entry> history, List<String> regions) {
		List<String> violations = new ArrayList<>();
		for (String region : regions) {
			List<Entry> ofRegion = history.stream()
				.filter((entry) -> entry.capability().equals("concurrency") && entry.region().equals(region))
				.toList();
			if (ofRegion.stream()
				.noneMatch((entry) -> entry.op().equals("acquire") && entry.outcome().equals("refused"))) {
				violations.add(region + ": no permit was refused, so the limit was never tested");
			}
			PriorityQueue<Long> ends = new PriorityQueue<>();
			List<Entry> holds = ofRegion.stream().filter((entry) -> entry.op().equals("hold")).toList();
			// permits of both versions held at once: the limit was shared across versions
			boolean shared = holds.stream()
				.anyMatch((one) -> holds.stream()
					.anyMatch((other) -> !other.version().equals(one.version()) && other.start() < one.end()
							&& one.start() < other.end()));
			if (!shared) {
				violations.add(region + ": no permits of both versions held at once: nothing tested");
			}
			for (Entry hold : holds) {
				while (!ends.isEmpty() && ends.peek() <= hold.start()) {
					ends.poll();
				}
				ends.add(hold.end());
				if (ends.size() > LIMIT) {
					violations.add(region + ": " + ends.size() + " permits held at once, limit " + LIMIT + ": " + hold);
				}
			}
		}
		return violations;
	}

}
