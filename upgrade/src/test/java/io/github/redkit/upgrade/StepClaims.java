package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Each step claimed once, whichever version claims it: per region, one {@code CLAIMED}
 * per operation and step, and a {@code charge} claimed only after its {@code reserve} was
 * completed. A run where no step claimed by one version was claimed again by the other,
 * both ways, tested nothing.
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
			Set<String> crossed = new TreeSet<>();
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
			// a step claimed by one version and claimed again (refused) by the other
			for (Entry entry : history) {
				if (entry.capability().equals("step") && entry.region().equals(region) && entry.op().equals("claim")
						&& !entry.text("claim").equals("CLAIMED") && claimed.containsKey(entry.key())) {
					Entry first = claimed.get(entry.key()).get(0);
					if (!first.version().equals(entry.version())) {
						crossed.add(first.version() + " then " + entry.version());
					}
				}
			}
			if (crossed.size() < 2) {
				violations.add(region + ": steps claimed by one version and claimed again by the other " + crossed
						+ ", not both ways: nothing tested");
			}
			if (claimed.keySet().stream().noneMatch((key) -> key.endsWith("/charge"))) {
				violations.add(region + ": no step was claimed after another: nothing was judged");
			}
		}
		return violations;
	}

}
