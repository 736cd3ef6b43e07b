package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * A concurrency limit's permits, whichever version granted them: per region, never more
 * holds at once than the limit, and some refused (the limit was reached). One pass over
 * the holds in the order they began (n log n: a run's history holds tens of thousands). A
 * run where no permits of both versions were held at once tested nothing: required of a
 * fleet in one region only (in two, a region runs both versions only while its slot is
 * replaced: a two-region run at load 18 had none in either region; the other checks apply
 * in each region).
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
			List<Entry> holds = ofRegion.stream()
				.filter((entry) -> entry.op().equals("hold"))
				.sorted(Comparator.comparingLong(Entry::start))
				.toList();
			if (regions.size() == 1 && !shared(holds)) {
				violations.add(region + ": no permits of both versions held at once: nothing tested");
			}
			PriorityQueue<Long> ends = new PriorityQueue<>();
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

	/**
	 * Whether permits of both versions were held at once (the limit was shared across
	 * versions): a hold overlaps one of another version that began no later exactly when
	 * that one's end, the latest of its version so far, is past this one's start (a hold
	 * ends after it begins).
	 * @param holds the holds, in the order they began
	 */
	private static boolean shared(List<Entry> holds) {
		Map<String, Long> latestEnd = new HashMap<>();
		for (Entry hold : holds) {
			for (Map.Entry<String, Long> other : latestEnd.entrySet()) {
				if (!other.getKey().equals(hold.version()) && other.getValue() > hold.start()
						&& hold.start() < hold.end()) {
					return true;
				}
			}
			latestEnd.merge(hold.version(), hold.end(), Math::max);
		}
		return false;
	}

}
