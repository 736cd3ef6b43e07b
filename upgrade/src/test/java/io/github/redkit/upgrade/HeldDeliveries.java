package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The list queue's takes, extends, retries and give-backs across versions
 * ({@link HeldLoad}): per region, every message sent is acknowledged (at least once
 * delivered, whatever version took, failed or released it before), nothing is taken that
 * was not sent, nothing is left at the end; a take is not taken by another consumer
 * before its visibility timeout (from the take's start, or an applied extend's start)
 * unless it was settled first (a take that began after it was answered, ended before its
 * settle began), and a settle sent within that time applies. A run where no message sent,
 * failed and released by one version was next taken by the other, both ways, and each
 * version did not extend, tested nothing: required of a fleet in one region only (as
 * {@link DeadLetters}).
 */
final class HeldDeliveries {

	private static final long VISIBILITY = HeldLoad.VISIBILITY.toNanos() / 1000;

	private static final long EXTENDED = HeldLoad.EXTENDED.toNanos() / 1000;

	private HeldDeliveries() {
	}

	static List<String> check(List<Entry> history, List<String> regions) {
		List<String> violations = new ArrayList<>();
		for (String region : regions) {
			List<Entry> ops = history.stream()
				.filter((entry) -> entry.capability().equals("held") && entry.region().equals(region))
				.sorted(Comparator.comparingLong(Entry::start))
				.toList();
			Map<String, List<Entry>> byId = new LinkedHashMap<>();
			Set<String> sent = new TreeSet<>();
			for (Entry entry : ops) {
				if (entry.op().equals("send") && entry.ok()) {
					sent.add(entry.text("id"));
				}
				if (entry.has("id") && !entry.op().equals("final")) {
					byId.computeIfAbsent(entry.text("id"), (id) -> new ArrayList<>()).add(entry);
				}
				if (entry.op().equals("final")
						&& entry.number("ready") + entry.number("inFlight") + entry.number("delayed") != 0) {
					violations.add(region + ": left at the end: " + entry);
				}
			}
			Set<String> crossed = new TreeSet<>();
			byId.forEach((id, entries) -> check(region, id, entries, sent, crossed, violations));
			if (sent.isEmpty()) {
				violations.add(region + ": no message was sent to " + HeldLoad.QUEUE + ": nothing was judged");
			}
			if (regions.size() == 1) {
				for (String op : List.of("send", "fail", "release")) {
					long ways = crossed.stream().filter((way) -> way.startsWith(op + " by ")).count();
					if (ways < 2) {
						violations.add(region + ": messages of " + op + " next taken by the other version " + ways
								+ " way(s) of 2 " + crossed + ": nothing tested");
					}
				}
				long extended = crossed.stream().filter((way) -> way.startsWith("extend by ")).count();
				if (extended < 2) {
					violations.add(region + ": takes extended by " + extended + " version(s) of 2: nothing tested");
				}
			}
		}
		return violations;
	}

	private static void check(String region, String id, List<Entry> entries, Set<String> sent, Set<String> crossed,
			List<String> violations) {
		if (!sent.contains(id)) {
			violations.add(region + ": taken but never sent: " + entries.get(0));
			return;
		}
		List<Entry> takes = entries.stream().filter((entry) -> entry.op().equals("take") && entry.ok()).toList();
		if (entries.stream().noneMatch((entry) -> entry.op().equals("ack") && entry.ok())) {
			violations.add(region + ": " + id + " sent, taken " + takes.size() + " times, never acknowledged");
		}
		// who gave it back last (sent, failed, released): the next take crossed
		// versions if by the other
		String givenBack = "send by " + entries.get(0).version();
		for (Entry take : takes) {
			if (givenBack != null && !givenBack.endsWith(" by " + take.version())) {
				crossed.add(givenBack + ", taken by " + take.version());
			}
			givenBack = null;
			Entry settle = null;
			long until = take.start() + VISIBILITY;
			for (Entry after : entries) {
				if (after.start() < take.end() || !after.text("instance").equals(take.text("instance"))) {
					continue;
				}
				if (after.op().equals("take")) {
					// its instance took it again: this take was never settled
					break;
				}
				if (after.op().equals("extend")) {
					if (after.ok()) {
						until = Math.max(until, after.start() + EXTENDED);
						crossed.add("extend by " + after.version());
					}
					else if (after.start() < until) {
						violations.add(region + ": an extend refused within the visibility timeout: " + after);
					}
					continue;
				}
				settle = after;
				break;
			}
			if (settle != null && !settle.ok() && settle.start() < until) {
				violations.add(region + ": a " + settle.op() + " refused within the visibility timeout: " + settle);
			}
			long settled = (settle != null && settle.ok()) ? settle.start() : Long.MAX_VALUE;
			long held = Math.min(until, settled);
			// only a take that began after this one was answered was surely applied after
			// it (of two calls at once, either may have been first)
			for (Entry other : takes) {
				if (other.start() > take.end() && other.end() < held) {
					violations.add(region + ": " + id + " taken by " + other.text("instance") + " at " + other.end()
							+ " while " + take.text("instance") + " held it (until " + until + ", settled at "
							+ ((settle != null) ? settle.start() : "never") + ")");
				}
			}
			if (settle != null && settle.ok() && !settle.op().equals("ack")) {
				givenBack = settle.op() + " by " + settle.version();
			}
		}
	}

}
