package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

/**
 * An operator's listing and forced release of a lock agree with its holders, whichever
 * version holds it, last freed it, lists or forces it: per region, a lock listed or
 * forced was held during the call (by the hold of the listed fencing token); one surely
 * held throughout the call is listed and forced, unless forced meanwhile; and it never
 * has two holders at once but after a forced release, with fencing tokens that increase.
 * A run where each version did not list and force the lock both while the other held it
 * and after the other's own release freed it tested nothing: required of a fleet in one
 * region only (in two, a region runs both versions only while its slot is replaced, too
 * short a moment for all eight crossings; every other check applies in each region).
 */
final class LockForcing {

	private LockForcing() {
	}

	static List<String> check(List<Entry> history, List<String> regions) {
		List<String> violations = new ArrayList<>();
		for (String region : regions) {
			List<Entry> entries = history.stream()
				.filter((entry) -> entry.capability().equals("lock-force") && entry.region().equals(region))
				.toList();
			List<Entry> holds = entries.stream()
				.filter((entry) -> entry.op().equals("hold"))
				.sorted(Comparator.comparingLong((entry) -> entry.number("from")))
				.toList();
			List<Entry> forced = entries.stream()
				.filter((entry) -> entry.op().equals("force") && Boolean.TRUE.equals(entry.fields().get("released")))
				.toList();
			holders(region, holds, forced, violations);
			Set<String> crossed = new TreeSet<>();
			for (Entry call : entries) {
				if (!call.ok() || !(call.op().equals("list") || call.op().equals("force"))) {
					continue;
				}
				boolean listing = call.op().equals("list");
				boolean held = Boolean.TRUE.equals(call.fields().get(listing ? "listed" : "released"));
				String what = region + ": " + (listing ? "listed" : "forced") + " by " + call.version();
				if (held) {
					Entry hold = holds.stream()
						.filter((h) -> h.start() <= call.end() && h.end() >= call.start()
								&& (!listing || h.number("token") == call.number("token")))
						.findFirst()
						.orElse(null);
					if (hold == null) {
						violations.add(what + ", and nobody held the lock: " + call);
					}
					else if (!hold.version().equals(call.version())) {
						crossed.add((listing ? "listed" : "forced") + " by " + call.version() + " while "
								+ hold.version() + " held it");
					}
					continue;
				}
				Entry surely = holds.stream()
					.filter((h) -> h.number("from") <= call.start() && h.number("to") >= call.end()
							&& forcedBetween(forced, h.start(), call.end(), call) == null)
					.findFirst()
					.orElse(null);
				if (surely != null) {
					violations.add(region + ": " + (listing ? "not listed" : "not forced") + " by " + call.version()
							+ " while held throughout:\n    " + surely + "\n    " + call);
					continue;
				}
				Entry freer = lastFreedBy(holds, forced, call);
				if (freer != null && !freer.version().equals(call.version())) {
					crossed.add((listing ? "not listed" : "not forced") + " by " + call.version() + " once "
							+ freer.version() + "'s release freed it");
				}
			}
			// with two regions, one slot each, a region runs both versions only while its
			// slot is replaced: too short a time to require it there
			if (regions.size() == 1 && crossed.size() < 8) {
				violations.add(region + ": the lock listed and forced across versions only as " + crossed
						+ " (each version, held by and freed by the other, listed and forced): nothing tested");
			}
		}
		return violations;
	}

	/**
	 * Never two holders at once (both surely held at one moment) but after a forced
	 * release between the first's acquisition and the second's, the first being the one
	 * of the lower fencing token; a hold surely taken before another's acquisition began
	 * has the lower token. The order of the replies is not the order of the acquisitions:
	 * a reply may come late.
	 */
	private static void holders(String region, List<Entry> holds, List<Entry> forced, List<String> violations) {
		for (int i = 0; i < holds.size(); i++) {
			Entry a = holds.get(i);
			for (int j = i + 1; j < holds.size(); j++) {
				Entry b = holds.get(j);
				if ((a.number("from") < b.start() && b.number("token") <= a.number("token"))
						|| (b.number("from") < a.start() && a.number("token") <= b.number("token"))) {
					violations.add(region + ": a fencing token that did not increase:\n    " + a + "\n    " + b);
				}
				if (a.number("from") < b.number("to") && b.number("from") < a.number("to")) {
					Entry first = (a.number("token") < b.number("token")) ? a : b;
					Entry second = (first == a) ? b : a;
					if (forcedBetween(forced, first.start(), second.number("from"), null) == null) {
						violations
							.add(region + ": two holders at once, none forced:\n    " + first + "\n    " + second);
					}
				}
			}
		}
	}

	/**
	 * A forced release (other than {@code except}) that may have taken effect between two
	 * moments.
	 */
	private static @Nullable Entry forcedBetween(List<Entry> forced, long from, long to, @Nullable Entry except) {
		return forced.stream()
			.filter((force) -> force != except && force.end() > from && force.start() < to)
			.findFirst()
			.orElse(null);
	}

	/**
	 * The hold whose own release last freed the lock before the call, when nothing held
	 * it during the call and no forced release came after that release.
	 */
	private static @Nullable Entry lastFreedBy(List<Entry> holds, List<Entry> forced, Entry call) {
		if (holds.stream().anyMatch((h) -> h.start() <= call.end() && h.end() >= call.start())) {
			return null;
		}
		Entry last = holds.stream()
			.filter((h) -> h.end() < call.start())
			.max(Comparator.comparingLong(Entry::end))
			.orElse(null);
		if (last == null || forcedBetween(forced, last.start(), call.start(), call) != null) {
			return null;
		}
		return last;
	}

}
