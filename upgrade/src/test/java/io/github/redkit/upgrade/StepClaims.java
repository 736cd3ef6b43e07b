package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Each step claimed once, whichever version claims it: per region, one {@code CLAIMED}
 * per operation and step, and a {@code charge} claimed only after its {@code reserve} was
 * completed.
 */
final class StepClaims {

	private StepClaims() {
	}

	static List<String> check(List<Entry> history, List<String> regions) {
		List<String> violations = new ArrayList<>();
		for (String region : regions) {
			Map<String, List<Entry>> claimed = new LinkedHashMap<>();
			Map<String, Entry> completed = new LinkedHashMap<>();
			for (Entry entry : history) {
				if (!entry.capability().equals("step") || !entry.region().equals(region)) {
					continue;
				}
				if (entry.op().equals("claim") && entry.text("claim").equals("CLAIMED")) {
					claimed.computeIfAbsent(entry.key(), (key) -> new ArrayList<>()).add(entry);
				}
				if (entry.op().equals("complete") && entry.ok()) {
					completed.putIfAbsent(entry.key(), entry);
				}
			}
			claimed.forEach((key, claims) -> {
				if (claims.size() > 1) {
					violations.add(region + ": " + key + " claimed " + claims.size() + " times: " + claims);
				}
				if (key.endsWith("/charge")) {
					Entry reserve = completed.get(key.replace("/charge", "/reserve"));
					if (reserve == null || reserve.start() > claims.get(0).end()) {
						violations
							.add(region + ": " + key + " claimed before its reserve was completed: " + claims.get(0));
					}
				}
			});
			if (claimed.keySet().stream().noneMatch((key) -> key.endsWith("/charge"))) {
				violations.add(region + ": no step was claimed after another: nothing was judged");
			}
		}
		return violations;
	}

}
