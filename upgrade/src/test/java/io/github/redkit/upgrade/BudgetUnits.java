package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * No budget unit created or lost, whichever version changed the budget: per region, the
 * budget is created once; every answer to one operation id is the first answer (a retry
 * on the other version replays it); and the final balance is the budget less each spend
 * and commit that applied, an id once, plus each refund that applied, an id once, and
 * less each spend without an operation id that applied (this build generates an id per
 * such call, which 0.1.0 neither writes nor reads). A run where no id was retried by the
 * other version, or where spends without an id did not follow the other version's both
 * ways, tested nothing.
 */
final class BudgetUnits {

	private BudgetUnits() {
	}

	static List<String> check(List<Entry> history, List<String> regions) {
		List<String> violations = new ArrayList<>();
		for (String region : regions) {
			List<Entry> changes = history.stream()
				.filter((entry) -> entry.capability().equals("budget") && entry.region().equals(region))
				.toList();
			long created = changes.stream()
				.filter((entry) -> entry.op().equals("create") && Boolean.TRUE.equals(entry.fields().get("created")))
				.count();
			if (created != 1) {
				violations.add(region + ": the budget was created " + created + " times");
			}
			Map<String, Entry> first = new LinkedHashMap<>();
			int crossVersion = 0;
			// spends without an operation id (this build generates one per call, 0.1.0
			// none) applied by one version after one of the other's
			Set<String> anonymousCrossed = new TreeSet<>();
			String lastAnonymous = null;
			long expected = BudgetLoad.AMOUNT;
			for (Entry change : changes) {
				String op = change.op();
				if (!List.of("spend", "spend-anon", "refund", "commit").contains(op)) {
					continue;
				}
				String id = op + " " + change.text("id");
				Entry earlier = first.putIfAbsent(id, change);
				if (earlier != null && !earlier.version().equals(change.version())) {
					crossVersion++;
				}
				if (earlier != null) {
					// a commit answers its first application to every later one; a spend
					// or refund answers its first answer, refusal included
					boolean same = op.equals("commit")
							? !earlier.ok()
									|| (change.ok() && change.number("remaining") == earlier.number("remaining"))
							: earlier.outcome().equals(change.outcome()) && Objects
								.equals(earlier.fields().get("remaining"), change.fields().get("remaining"));
					if (!same) {
						violations.add(region + ": a retry answered otherwise than the first call:\n    " + earlier
								+ "\n    " + change);
					}
					continue;
				}
				if (op.equals("spend-anon") && change.ok()) {
					if (lastAnonymous != null && !lastAnonymous.equals(change.version())) {
						anonymousCrossed.add(lastAnonymous + " then " + change.version());
					}
					lastAnonymous = change.version();
				}
				if (change.ok()) {
					long amount = change.number("amount");
					expected += op.equals("refund") ? amount : -amount;
				}
			}
			List<Entry> finals = changes.stream().filter((entry) -> entry.op().equals("final")).toList();
			if (finals.size() != 1) {
				violations.add(region + ": " + finals.size() + " final balances read");
			}
			else if (finals.get(0).number("remaining") != expected) {
				violations.add(String.format(
						"%s: the final balance is %d, not %d (the budget %d, less what applied and plus what was refunded)",
						region, finals.get(0).number("remaining"), expected, BudgetLoad.AMOUNT));
			}
			if (crossVersion == 0) {
				violations.add(region
						+ ": no operation id applied by one version was retried by the other: nothing was tested");
			}
			if (anonymousCrossed.size() < 2) {
				violations.add(region + ": spends without an operation id applied after the other version's "
						+ anonymousCrossed + ", not both ways: nothing was tested");
			}
			if (changes.stream().noneMatch((entry) -> entry.op().equals("spend") && entry.ok())) {
				violations.add(region + ": no spend applied: nothing was judged");
			}
		}
		return violations;
	}

}
