package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A budget deleted, created and replaced while both versions spend it keeps the balance
 * rules of docs/budgets.md: per region, a spend that applied answers a balance below the
 * budget and at least 0, one refused answers 0 (a unit spend is refused only on an empty
 * budget), and two spends that answered the same balance have a create, replace or delete
 * between them (none took a unit twice, none created one). A run where a replace and a
 * delete of each version did not race a spend of the other tested nothing: required of a
 * fleet in one region only (in two, a region runs both versions only while its slot is
 * replaced; every other check applies in each region).
 */
final class BudgetCycles {

	private static final Set<String> RESETS = Set.of("replace", "create", "delete");

	private BudgetCycles() {
	}

	static List<String> check(List<Entry> history, List<String> regions) {
		List<String> violations = new ArrayList<>();
		for (String region : regions) {
			List<Entry> calls = history.stream()
				.filter((entry) -> entry.capability().equals("budget-cycle") && entry.region().equals(region))
				.toList();
			List<Entry> resets = calls.stream().filter((entry) -> RESETS.contains(entry.op()) && entry.ok()).toList();
			Map<Long, Entry> lastAt = new LinkedHashMap<>();
			Set<String> crossed = new TreeSet<>();
			for (Entry spend : calls) {
				if (!spend.op().equals("spend") || spend.outcome().equals("error")) {
					continue;
				}
				for (Entry reset : resets) {
					if (!reset.op().equals("create") && !reset.version().equals(spend.version())
							&& reset.start() < spend.end() && spend.start() < reset.end()) {
						crossed.add(reset.op() + " by " + reset.version() + " racing a spend by " + spend.version());
					}
				}
				if (spend.outcome().equals("missing")) {
					continue;
				}
				long remaining = spend.number("remaining");
				if (spend.outcome().equals("refused") ? remaining != 0
						: remaining < 0 || remaining >= BudgetCycleLoad.AMOUNT) {
					violations.add(region + ": a spend answered a balance the rules do not allow: " + spend);
				}
				if (!spend.ok()) {
					continue;
				}
				Entry earlier = lastAt.put(remaining, spend);
				// either may have applied first: a reply may come late
				if (earlier != null && resets.stream()
					.noneMatch((reset) -> reset.end() > Math.min(earlier.start(), spend.start())
							&& reset.start() < Math.max(earlier.end(), spend.end()))) {
					violations.add(region + ": two spends answered the same balance with nothing reset between:\n    "
							+ earlier + "\n    " + spend);
				}
			}
			// with two regions, one slot each, a region runs both versions only while its
			// slot is replaced: too short a time to require it there
			if (regions.size() == 1 && crossed.size() < 4) {
				violations.add(region + ": a budget's replace and delete raced the other version's spends only as "
						+ crossed + ": nothing tested");
			}
		}
		return violations;
	}

}
