package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Delayed sends collapsed once, whichever version sent and took them: per region, queue
 * and payload, a first-wins or last-wins queue delivers exactly one message per send
 * answered "scheduled" (a collapsed send, dropped or replacing the pending one, adds
 * none), each on its first delivery, and every acknowledgement applies. A run where no
 * send was collapsed into a message of the other version, both ways on each queue, tested
 * nothing.
 */
final class DelayedDeliveries {

	private DelayedDeliveries() {
	}

	static List<String> check(List<Entry> history, List<String> regions) {
		List<String> violations = new ArrayList<>();
		for (String region : regions) {
			List<Entry> ops = history.stream()
				.filter((entry) -> entry.capability().equals("queue-delay") && entry.region().equals(region))
				.sorted(Comparator.comparingLong(Entry::start))
				.toList();
			for (String queue : DelayLoad.QUEUES) {
				boolean lastWins = queue.equals(DelayLoad.LAST_WINS);
				Map<String, Long> scheduled = new TreeMap<>();
				Map<String, Long> taken = new TreeMap<>();
				// which version's message is pending for a payload, as far as the order
				// of
				// the calls tells (only to judge whether anything crossed versions)
				Map<String, String> pending = new HashMap<>();
				Set<String> crossed = new TreeSet<>();
				for (Entry entry : ops) {
					if (!entry.key().equals(queue) || !entry.ok()) {
						if (entry.key().equals(queue) && entry.op().equals("ack")) {
							violations.add(region + ": an acknowledgement that did not apply: " + entry);
						}
						continue;
					}
					String id = entry.text("id");
					if (entry.op().equals("send")) {
						boolean isNew = Boolean.TRUE.equals(entry.fields().get("scheduled"));
						if (isNew) {
							scheduled.merge(id, 1L, Long::sum);
						}
						else {
							String by = pending.get(id);
							if (by != null && !by.equals(entry.version())) {
								crossed.add(by + " then " + entry.version());
							}
						}
						if (isNew || lastWins) {
							pending.put(id, entry.version());
						}
					}
					if (entry.op().equals("take")) {
						taken.merge(id, 1L, Long::sum);
						if (entry.number("deliveries") != 1) {
							violations.add(region + ": a delayed message delivered again: " + entry);
						}
					}
				}
				if (!scheduled.equals(taken)) {
					violations.add(region + ": " + queue + " delivered " + taken + " per payload, not once per send"
							+ " scheduled " + scheduled);
				}
				if (crossed.size() < 2) {
					violations.add(region + ": " + queue + ": sends collapsed into the other version's message "
							+ crossed + ", not both ways: nothing tested");
				}
			}
		}
		return violations;
	}

}
