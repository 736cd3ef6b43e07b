package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * No lock held by two at once, whichever versions hold it: per region, the holds (from
 * the acquisition's answer to the release's call) never overlap, and in the order they
 * began their fencing tokens increase.
 */
final class LockHolds {

	private LockHolds() {
	}

	static List<String> check(List<Entry> history, List<String> regions) {
		List<String> violations = new ArrayList<>();
		for (String region : regions) {
			List<Entry> holds = history.stream()
				.filter((entry) -> entry.is("lock", "hold") && entry.region().equals(region))
				.toList();
			if (holds.isEmpty()) {
				violations.add(region + ": no lock was ever held");
			}
			Entry previous = null;
			Set<String> crossed = new TreeSet<>();
			for (Entry hold : holds) {
				if (previous != null && !previous.version().equals(hold.version())) {
					crossed.add(previous.version() + " then " + hold.version());
				}
				if (!Boolean.TRUE.equals(hold.fields().get("held"))) {
					violations.add(region + ": a holder lost its lock while holding it: " + hold);
				}
				if (previous != null && hold.start() < previous.end()) {
					violations.add(region + ": two holders at once:\n    " + previous + "\n    " + hold);
				}
				if (previous != null && hold.number("token") <= previous.number("token")) {
					violations
						.add(region + ": a fencing token that did not increase:\n    " + previous + "\n    " + hold);
				}
				if (previous == null || hold.end() > previous.end()) {
					previous = hold;
				}
			}
			if (crossed.size() < 2) {
				violations
					.add(region + ": the lock passed between versions " + crossed + ", not both ways: nothing tested");
			}
		}
		return violations;
	}

}
