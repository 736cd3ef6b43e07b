package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Each dead letter requeued once, whichever version dead-lettered and requeued it: per
 * region, every message sent is taken once more than it was dead-lettered and
 * acknowledged once, always on a first delivery (a requeue gives a fresh count); the
 * requeues, of all ({@code requeueDeadLetters}) or of one by its id
 * ({@code requeueDeadLetter}, answering whether it moved it), moved exactly as many as
 * were dead-lettered; nothing is left in flight or dead. A run where no dead letter of
 * one version was requeued by the other, both ways, by a requeue of all and by one of its
 * id, tested nothing: required of a fleet in one region only (in two, a region runs both
 * versions only while its slot is replaced, too short a moment for it on a loaded
 * machine; the other checks apply in each region).
 */
final class DeadLetters {

	private DeadLetters() {
	}

	static List<String> check(List<Entry> history, List<String> regions) {
		List<String> violations = new ArrayList<>();
		for (String region : regions) {
			List<Entry> ops = history.stream()
				.filter((entry) -> entry.capability().equals("dead-letter") && entry.region().equals(region))
				.sorted(Comparator.comparingLong(Entry::start))
				.toList();
			Map<String, long[]> counts = new LinkedHashMap<>();
			long deadLettered = 0;
			long requeued = 0;
			Set<String> pending = new TreeSet<>();
			Set<String> crossed = new TreeSet<>();
			// who dead-lettered each message last (by the queue's message id), and
			// which version's dead letter the other moved back by its id
			Map<String, String> deadBy = new HashMap<>();
			Set<String> crossedById = new TreeSet<>();
			for (Entry entry : ops) {
				String op = entry.op();
				if (!entry.ok()) {
					if (op.equals("fail") || op.equals("ack")) {
						violations.add(region + ": a " + op + " that did not apply: " + entry);
					}
					continue;
				}
				switch (op) {
					// a take that started before the send started may still get its
					// message
					case "send" -> counts.computeIfAbsent(entry.text("id"), (id) -> new long[3]);
					case "take" -> {
						counts.computeIfAbsent(entry.text("id"), (id) -> new long[3])[0]++;
						if (entry.number("deliveries") != 1) {
							violations.add(region + ": taken on a later delivery: " + entry);
						}
					}
					case "fail" -> {
						counts.computeIfAbsent(entry.text("id"), (id) -> new long[3])[1]++;
						deadLettered++;
						pending.add(entry.version());
						deadBy.put(entry.text("message"), entry.version());
					}
					case "ack" -> counts.computeIfAbsent(entry.text("id"), (id) -> new long[3])[2]++;
					case "requeue" -> {
						requeued += entry.number("moved");
						if (entry.number("moved") > 0) {
							pending.stream()
								.filter((version) -> !version.equals(entry.version()))
								.forEach((version) -> crossed.add(version + " then " + entry.version()));
							pending.clear();
						}
					}
					case "requeue-one" -> {
						requeued += entry.number("moved");
						String by = deadBy.get(entry.text("message"));
						if (entry.number("moved") > 0 && by != null && !by.equals(entry.version())) {
							crossedById.add(by + " then " + entry.version());
						}
					}
					case "final" -> {
						if (entry.number("inFlight") != 0 || entry.number("dead") != 0) {
							violations.add(region + ": left in flight or dead at the end: " + entry);
						}
					}
					default -> {
					}
				}
			}
			counts.forEach((id, taken) -> {
				if (taken[0] != taken[1] + 1 || taken[2] != 1) {
					violations.add(String.format("%s: %s taken %d times, dead-lettered %d, acknowledged %d", region, id,
							taken[0], taken[1], taken[2]));
				}
			});
			if (requeued != deadLettered) {
				violations.add(region + ": " + requeued + " dead letters requeued, not the " + deadLettered
						+ " dead-lettered");
			}
			if (regions.size() == 1 && crossed.size() < 2) {
				violations.add(region + ": dead letters requeued by the other version " + crossed
						+ ", not both ways: nothing tested");
			}
			if (regions.size() == 1 && crossedById.size() < 2) {
				violations.add(region + ": dead letters requeued by their id by the other version " + crossedById
						+ ", not both ways: nothing tested");
			}
		}
		return violations;
	}

}
