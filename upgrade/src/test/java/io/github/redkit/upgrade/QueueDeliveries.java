package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * No queued message lost or delivered twice as a new message, whichever version sent and
 * took it: per region, every message a send acknowledged is taken exactly once, on its
 * first delivery, readable, and its acknowledgement applies; nothing is taken that was
 * not sent.
 */
final class QueueDeliveries {

	private QueueDeliveries() {
	}

	static List<String> check(List<Entry> history, List<String> regions) {
		List<String> violations = new ArrayList<>();
		for (String region : regions) {
			List<Entry> ops = history.stream()
				.filter((entry) -> entry.capability().equals("queue") && entry.region().equals(region))
				.toList();
			Set<String> sent = new LinkedHashSet<>();
			ops.stream()
				.filter((entry) -> entry.op().equals("send") && entry.ok())
				.forEach((entry) -> sent.add(entry.text("id")));
			Map<String, List<Entry>> taken = new LinkedHashMap<>();
			for (Entry take : ops) {
				if (take.op().equals("take") && take.ok()) {
					taken.computeIfAbsent(take.text("id"), (id) -> new ArrayList<>()).add(take);
					if (take.number("deliveries") != 1) {
						violations.add(region + ": a message delivered again: " + take);
					}
				}
				if (take.op().equals("ack") && !take.ok()) {
					violations.add(region + ": an acknowledgement that did not apply: " + take);
				}
			}
			taken.forEach((id, takes) -> {
				if (takes.size() > 1) {
					violations.add(region + ": " + id + " taken " + takes.size() + " times: " + takes);
				}
				if (!sent.contains(id)) {
					violations.add(region + ": taken but never sent: " + takes.get(0));
				}
			});
			List<String> lost = sent.stream().filter((id) -> !taken.containsKey(id)).toList();
			if (!lost.isEmpty()) {
				violations.add(region + ": " + lost.size() + " of " + sent.size() + " messages sent were never taken: "
						+ lost.subList(0, Math.min(10, lost.size())));
			}
			if (sent.isEmpty()) {
				violations.add(region + ": no message was sent: nothing was judged");
			}
		}
		return violations;
	}

}
