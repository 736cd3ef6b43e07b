package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * No queued message lost or delivered twice as a new message, whichever version sent and
 * took it: per region, every message a send acknowledged is taken exactly once, on its
 * first delivery, readable, and its acknowledgement applies; nothing is taken that was
 * not sent; nothing is left in flight. Plain sends, {@code sendAll}, and takes that
 * acknowledge the previous message must each have crossed versions both ways.
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
			// each id sent: by which kind of send, and which version
			Map<String, Entry> sent = new LinkedHashMap<>();
			for (Entry send : ops) {
				if (send.op().equals("send") && send.ok()) {
					sent.put(send.text("id"), send);
				}
				if (send.op().equals("send-all") && send.ok()) {
					for (String id : send.text("ids").split(",")) {
						sent.put(id, send);
					}
				}
			}
			Set<String> crossed = new TreeSet<>();
			Map<String, List<Entry>> taken = new LinkedHashMap<>();
			for (Entry take : ops) {
				if ((take.op().equals("take") || take.op().equals("ack-take")) && take.ok()) {
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
				Entry send = sent.get(id);
				if (send == null) {
					violations.add(region + ": taken but never sent: " + takes.get(0));
				}
				else if (!send.version().equals(takes.get(0).version())) {
					crossed.add(send.op() + " by " + send.version() + ", taken by " + takes.get(0).version());
					crossed.add(takes.get(0).op() + " by " + takes.get(0).version() + " of " + send.version());
				}
			});
			List<String> lost = sent.keySet().stream().filter((id) -> !taken.containsKey(id)).toList();
			if (!lost.isEmpty()) {
				violations.add(region + ": " + lost.size() + " of " + sent.size() + " messages sent were never taken: "
						+ lost.subList(0, Math.min(10, lost.size())));
			}
			ops.stream()
				.filter((entry) -> entry.op().equals("final") && entry.number("inFlight") != 0)
				.forEach((entry) -> violations.add(region + ": " + entry.number("inFlight")
						+ " messages left in flight (unacknowledged): " + entry));
			if (sent.isEmpty()) {
				violations.add(region + ": no message was sent: nothing was judged");
			}
			// each kind of send must have crossed versions both ways, else nothing was
			// tested
			for (String op : List.of("send", "send-all", "ack-take")) {
				long ways = crossed.stream().filter((way) -> way.startsWith(op + " by ")).count();
				if (ways < 2) {
					violations.add(region + ": messages of " + op + " crossed versions " + ways + " way(s) of 2 "
							+ crossed + ": nothing tested");
				}
			}
		}
		return violations;
	}

}
