package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The README's bound over every interval of one period, on Redis' clock, whichever
 * version decided: the allowed calls of one limit and key never exceed the limit
 * ({@code sliding-window}, {@code sliding-log}), twice it ({@code fixed-window}), or
 * twice it less one ({@code token-bucket}). A global limit holds it for each region's own
 * calls and, across regions, at most the regions' count times it (docs/multi-region.md).
 * Every decision was Redis': none decided without it. A limit whose windows never held
 * {@value #CROSSING} allowed decisions of each version at once never counted one
 * version's calls against the other's: nothing tested. That crossing is required of each
 * limit in one region; in two, of the global limit only, across regions (a region runs
 * both versions only while its slot is replaced), while the bound itself is checked for
 * every limit in each region.
 */
final class RateLimitBound {

	/** The limits the fleet runs: name, algorithm, limit per period. */
	static final Map<String, String> ALGORITHMS = Map.of("sw", "sliding-window", "log", "sliding-log", "fixed",
			"fixed-window", "bucket", "token-bucket", "global", "sliding-window");

	static final int LIMIT = 20;

	static final long PERIOD_MILLIS = 500;

	/**
	 * How many allowed decisions of each version one interval of a period must hold, for
	 * some interval, to show both versions counted in one window.
	 */
	static final int CROSSING = LIMIT / 4;

	private RateLimitBound() {
	}

	static List<String> properties(boolean regions) {
		List<String> properties = new ArrayList<>();
		ALGORITHMS.forEach((name, algorithm) -> {
			if (!name.equals("global") || regions) {
				String prefix = "redkit.rate-limit.limits." + name;
				properties.add(prefix + ".algorithm=" + algorithm);
				properties.add(prefix + ".windows[0].limit=" + LIMIT);
				properties.add(prefix + ".windows[0].period=" + PERIOD_MILLIS + "ms");
			}
		});
		if (regions) {
			properties.add("redkit.rate-limit.limits.global.global=true");
		}
		properties.add("upgrade.limits=" + String.join(",",
				ALGORITHMS.keySet().stream().filter((name) -> !name.equals("global") || regions).sorted().toList()));
		return properties;
	}

	static List<String> check(List<Entry> history, List<String> regions) {
		List<String> violations = new ArrayList<>();
		List<Entry> decisions = history.stream().filter((entry) -> entry.is("rate-limit", "acquire")).toList();
		decisions.stream()
			.filter((entry) -> !entry.outcome().equals("error")
					&& (!entry.has("at") || (boolean) entry.fields().get("local")))
			.limit(5)
			.forEach((entry) -> violations.add("a decision Redis did not take: " + entry));
		for (String limit : ALGORITHMS.keySet()) {
			long bound = switch (ALGORITHMS.get(limit)) {
				case "fixed-window" -> 2L * LIMIT;
				case "token-bucket" -> 2L * LIMIT - 1;
				default -> LIMIT;
			};
			for (String region : regions) {
				// with two regions, one slot each, a region runs both versions only while
				// its slot is replaced: the versions meet in the global limit instead
				bound(limit + " in " + region, bound, decisions,
						(entry) -> entry.key().equals(limit) && entry.region().equals(region), regions.size() == 1,
						violations);
			}
			if (limit.equals("global") && regions.size() > 1) {
				bound(limit + " in every region", bound * regions.size(), decisions,
						(entry) -> entry.key().equals(limit), true, violations);
			}
		}
		return violations;
	}

	private static void bound(String what, long bound, List<Entry> decisions, Predicate<Entry> selected,
			boolean mustCross, List<String> violations) {
		List<Entry> ofLimit = decisions.stream().filter(selected).toList();
		if (ofLimit.isEmpty()) {
			return;
		}
		if (ofLimit.stream().noneMatch((entry) -> entry.outcome().equals("refused"))) {
			violations.add(what + ": never refused, so its bound was never tested");
		}
		List<Entry> allowed = ofLimit.stream()
			.filter((entry) -> entry.ok() && entry.has("at"))
			.sorted(Comparator.comparingLong((entry) -> entry.number("at")))
			.toList();
		long period = PERIOD_MILLIS * 1000;
		int first = 0;
		Map<String, Integer> inWindow = new HashMap<>();
		boolean crossed = false;
		for (int last = 0; last < allowed.size(); last++) {
			while (allowed.get(last).number("at") - allowed.get(first).number("at") >= period) {
				inWindow.merge(allowed.get(first).version(), -1, Integer::sum);
				first++;
			}
			inWindow.merge(allowed.get(last).version(), 1, Integer::sum);
			crossed |= inWindow.values().stream().filter((count) -> count >= CROSSING).count() >= 2;
			if (last - first + 1 > bound) {
				violations.add(String.format("%s: %d allowed within %d ms (bound %d), by %s", what, last - first + 1,
						PERIOD_MILLIS, bound,
						allowed.subList(first, last + 1)
							.stream()
							.map((entry) -> entry.text("instance") + "@" + entry.version())
							.collect(Collectors.toSet())));
				for (int i = first; i <= last; i++) {
					inWindow.merge(allowed.get(i).version(), -1, Integer::sum);
				}
				first = last + 1;
			}
		}
		if (mustCross && !crossed) {
			violations.add(String.format(
					"%s: no interval of %d ms held %d allowed decisions of each version "
							+ "(by version at most %s): nothing tested",
					what, PERIOD_MILLIS, CROSSING, most(allowed, period)));
		}
	}

	/**
	 * The most allowed decisions of each version in one interval of a period, for the
	 * message.
	 */
	private static Map<String, Integer> most(List<Entry> allowed, long period) {
		Map<String, Integer> most = new TreeMap<>();
		Map<String, Integer> inWindow = new HashMap<>();
		int first = 0;
		for (int last = 0; last < allowed.size(); last++) {
			while (allowed.get(last).number("at") - allowed.get(first).number("at") >= period) {
				inWindow.merge(allowed.get(first).version(), -1, Integer::sum);
				first++;
			}
			int count = inWindow.merge(allowed.get(last).version(), 1, Integer::sum);
			most.merge(allowed.get(last).version(), count, Math::max);
		}
		return most;
	}

}
