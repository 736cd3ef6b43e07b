package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * An abandoned step is free for one retry, whichever version abandoned and claims it: per
 * region and step, no two claims held it at once (a hold runs from the end of its claim
 * to the start of its abandon or completion), and no claim answered {@code IN_PROGRESS}
 * while every earlier holder had surely let go. A run where no step abandoned by one
 * version was claimed next by the other, both ways, tested nothing: required of a fleet
 * in one region only (in two, a region runs both versions only while its slot is
 * replaced, too short a moment for it on a loaded machine: a two-region run at load 30
 * had none; the other checks apply in each region).
 */
final class StepAbandons {

	private StepAbandons() {
	}

	static List<String> check(List<Entry> history, List<String> regions) {
		List<String> violations = new ArrayList<>();
		for (String region : regions) {
			Map<String, List<Entry>> byKey = new LinkedHashMap<>();
			history.stream()
				.filter((entry) -> entry.capability().equals("step-abandon") && entry.region().equals(region))
				.sorted(Comparator.comparingLong(Entry::start))
				.forEach((entry) -> byKey.computeIfAbsent(entry.key(), (key) -> new ArrayList<>()).add(entry));
			Set<String> crossed = new TreeSet<>();
			byKey.forEach((key, entries) -> check(region, key, entries, violations, crossed));
			if (regions.size() == 1 && crossed.size() < 2) {
				violations.add(region + ": steps abandoned by one version and claimed next by the other " + crossed
						+ ", not both ways: nothing tested");
			}
		}
		return violations;
	}

	private static void check(String region, String key, List<Entry> entries, List<String> violations,
			Set<String> crossed) {
		// each hold: its claim and what ended it (an abandon or completion of the same
		// instance, the next one of that instance after the claim)
		List<Entry[]> holds = new ArrayList<>();
		for (int i = 0; i < entries.size(); i++) {
			Entry claim = entries.get(i);
			if (!claim.op().equals("claim") || !claim.text("claim").equals("CLAIMED")) {
				continue;
			}
			Entry end = null;
			for (int j = i + 1; j < entries.size() && end == null; j++) {
				Entry next = entries.get(j);
				if (!next.op().equals("claim") && next.text("instance").equals(claim.text("instance"))) {
					end = next;
				}
			}
			holds.add(new Entry[] { claim, end });
		}
		for (int a = 0; a < holds.size(); a++) {
			for (int b = a + 1; b < holds.size(); b++) {
				Entry[] first = holds.get(a);
				Entry[] second = holds.get(b);
				long firstEnds = (first[1] != null) ? first[1].start() : Long.MAX_VALUE;
				long secondEnds = (second[1] != null) ? second[1].start() : Long.MAX_VALUE;
				if (first[0].end() < secondEnds && second[0].end() < firstEnds) {
					violations.add(region + ": " + key + " held by two claims at once:\n    " + first[0] + "\n    "
							+ second[0]);
				}
			}
			Entry[] hold = holds.get(a);
			if (hold[1] != null && hold[1].op().equals("abandon") && a + 1 < holds.size()
					&& !hold[1].version().equals(holds.get(a + 1)[0].version())) {
				crossed.add(hold[1].version() + " then " + holds.get(a + 1)[0].version());
			}
		}
		for (Entry claim : entries) {
			if (!claim.op().equals("claim") || !claim.text("claim").equals("IN_PROGRESS")) {
				continue;
			}
			boolean justified = holds.stream()
				.anyMatch(
						(hold) -> hold[0].start() < claim.end() && (hold[1] == null || hold[1].end() > claim.start()));
			if (!justified) {
				violations.add(region + ": " + key + " answered IN_PROGRESS after every holder let go: " + claim);
			}
		}
	}

}
