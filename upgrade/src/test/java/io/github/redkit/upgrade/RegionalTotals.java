package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Regions agree on what every version did: once every change stopped, each region's
 * counter is the sum of every increment of every region, and each region's view of the
 * allotted budget is the budget less every spend that applied (an operation id once).
 */
final class RegionalTotals {

	private RegionalTotals() {
	}

	static List<String> check(List<Entry> history, List<String> regions) {
		List<String> violations = new ArrayList<>();
		List<Entry> ops = history.stream().filter((entry) -> entry.capability().equals("region")).toList();
		long allotted = ops.stream()
			.filter((entry) -> entry.op().equals("allot") && Boolean.TRUE.equals(entry.fields().get("created")))
			.count();
		if (allotted != 1) {
			violations.add("the regional budget was allotted " + allotted + " times");
		}
		long counter = ops.stream()
			.filter((entry) -> entry.op().equals("increment") && entry.ok())
			.mapToLong((entry) -> entry.number("amount"))
			.sum();
		Map<String, Long> spent = ops.stream()
			.filter((entry) -> entry.op().equals("spend") && entry.ok())
			.collect(Collectors.toMap((entry) -> entry.text("id"), (entry) -> entry.number("amount"), (a, b) -> a));
		long budget = RegionLoad.SHARE * regions.size() - spent.values().stream().mapToLong(Long::longValue).sum();
		for (String region : regions) {
			finalValue(ops, region, "final-counter", counter, violations);
			finalValue(ops, region, "final-budget", budget, violations);
		}
		return violations;
	}

	private static void finalValue(List<Entry> ops, String region, String op, long expected, List<String> violations) {
		List<Entry> finals = ops.stream()
			.filter((entry) -> entry.op().equals(op) && entry.region().equals(region))
			.toList();
		if (finals.size() != 1) {
			violations.add(region + ": " + finals.size() + " " + op + " read");
		}
		else if (finals.get(0).number("value") != expected) {
			violations.add(String.format("%s: %s is %d, not %d", region, op, finals.get(0).number("value"), expected));
		}
	}

}
