package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

/**
 * Delayed sends collapsed by the documented rule, whichever version sent and took them
 * (docs/queues.md): per region, queue and payload, a send is answered "scheduled" only
 * when no message of its payload is pending, and "collapsed" only when one is; a
 * first-wins queue keeps the pending message's due time, a last-wins one restarts it from
 * the collapsed send; each message is delivered once, on its first delivery, never before
 * its due time, and every acknowledgement applies. A run where no send was collapsed into
 * a message of the other version, both ways on each queue, tested nothing: required of a
 * fleet in one region only (in two, a region runs both versions only while its slot is
 * replaced, and a message is pending for 30-100 ms; the other checks apply in each
 * region).
 * <p>
 * Due times are placed on the machine's clock, which Redis shares: a send's is its delay
 * after some moment of the call. A message is pending from its send until a take moves it
 * to the ready list once due, at the latest by a take that began
 * {@link #HINT_MAX_AGE_MICROS} after that (a take trusts the queue's next-due hint that
 * long at most; both versions keep it, the margin holds for a writer that would not).
 * Messages of one payload are scheduled one after another, due in that order, and taken
 * in that order, so the k-th take to end is judged against the k-th due time.
 */
final class DelayedDeliveries {

	// queue_hint.lua's HINT_MAX_AGE, and a millisecond of the scripts' rounding
	static final long HINT_MAX_AGE_MICROS = 1_001_000;

	private static final long ROUNDING_MICROS = 1_000;

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
				List<Entry> ofQueue = ops.stream().filter((entry) -> entry.key().equals(queue)).toList();
				ofQueue.stream()
					.filter((entry) -> entry.op().equals("ack") && !entry.ok())
					.forEach((entry) -> violations.add(region + ": an acknowledgement that did not apply: " + entry));
				Map<String, Payload> payloads = new TreeMap<>();
				for (Entry entry : ofQueue) {
					if (entry.ok() && (entry.op().equals("send") || entry.op().equals("take"))) {
						payloads.computeIfAbsent(entry.text("id"), (id) -> new Payload()).add(entry);
					}
				}
				// every take of the queue, empty ones included: each moves what is due
				Takes takes = new Takes(ofQueue.stream().filter((entry) -> entry.op().equals("take")).toList());
				boolean lastWins = queue.equals(DelayLoad.LAST_WINS);
				Map<String, Long> scheduled = new TreeMap<>();
				Map<String, Long> taken = new TreeMap<>();
				payloads.forEach((id, payload) -> {
					scheduled.put(id, (long) payload.scheduled.size());
					taken.put(id, (long) payload.taken.size());
					String where = region + ": " + queue + " " + id;
					payload.judge(where, lastWins, takes, violations);
				});
				scheduled.values().removeIf((count) -> count == 0);
				taken.values().removeIf((count) -> count == 0);
				if (!scheduled.equals(taken)) {
					violations.add(region + ": " + queue + " delivered " + taken + " per payload, not once per send"
							+ " scheduled " + scheduled);
				}
				Set<String> crossed = crossed(ofQueue, lastWins);
				if (regions.size() == 1 && crossed.size() < 2) {
					violations.add(region + ": " + queue + ": sends collapsed into the other version's message "
							+ crossed + ", not both ways: nothing tested");
				}
			}
		}
		return violations;
	}

	/**
	 * Which version's message each collapsed send met, as far as the order of the calls
	 * tells (only to judge whether anything crossed versions).
	 */
	private static Set<String> crossed(List<Entry> ofQueue, boolean lastWins) {
		Map<String, String> pending = new HashMap<>();
		Set<String> crossed = new TreeSet<>();
		for (Entry entry : ofQueue) {
			if (!entry.ok() || !entry.op().equals("send")) {
				continue;
			}
			String id = entry.text("id");
			boolean isNew = scheduled(entry);
			if (!isNew) {
				String by = pending.get(id);
				if (by != null && !by.equals(entry.version())) {
					crossed.add(by + " then " + entry.version());
				}
			}
			if (isNew || lastWins) {
				pending.put(id, entry.version());
			}
		}
		return crossed;
	}

	private static boolean scheduled(Entry send) {
		return Boolean.TRUE.equals(send.fields().get("scheduled"));
	}

	/**
	 * The earliest a send's message can be due: its delay after the call began.
	 */
	private static long earliestDue(Entry send) {
		return send.start() + send.number("delay") * 1000 - ROUNDING_MICROS;
	}

	/**
	 * The latest a send's message can be due: its delay after the call ended.
	 */
	private static long latestDue(Entry send) {
		return send.end() + send.number("delay") * 1000 + ROUNDING_MICROS;
	}

	/**
	 * The sends and deliveries of one payload on one queue.
	 */
	private static final class Payload {

		// the sends answered "scheduled", in the order they began: the payload's messages
		private final List<Entry> scheduled = new ArrayList<>();

		private final List<Entry> collapsed = new ArrayList<>();

		private final List<Entry> taken = new ArrayList<>();

		void add(Entry entry) {
			if (entry.op().equals("take")) {
				this.taken.add(entry);
			}
			else if (scheduled(entry)) {
				this.scheduled.add(entry);
			}
			else {
				this.collapsed.add(entry);
			}
		}

		void judge(String where, boolean lastWins, Takes takes, List<String> violations) {
			for (Entry take : this.taken) {
				if (take.number("deliveries") != 1) {
					violations.add(where + ": a delayed message delivered again: " + take);
				}
			}
			long[] due = new long[this.scheduled.size()];
			for (int k = 0; k < due.length; k++) {
				due[k] = earliestDue(k, lastWins);
			}
			// the k-th delivery to end ended after the k-th message could be due
			long[] delivered = this.taken.stream().mapToLong(Entry::end).sorted().toArray();
			long[] dueInOrder = due.clone();
			Arrays.sort(dueInOrder);
			for (int k = 0; k < Math.min(delivered.length, dueInOrder.length); k++) {
				if (delivered[k] < dueInOrder[k]) {
					violations.add(String.format("%s: delivery %d ended at %d, before its message could be due (%d%s)",
							where, k + 1, delivered[k], dueInOrder[k],
							lastWins ? ": a last-wins send restarts the delay" : ""));
				}
			}
			for (int k = 1; k < this.scheduled.size(); k++) {
				Entry send = this.scheduled.get(k);
				Entry before = this.scheduled.get(k - 1);
				if (before.end() < send.start() && send.end() < due[k - 1]) {
					violations.add(where + ": scheduled anew while the message before was pending, not yet due:\n    "
							+ before + "\n    " + send);
				}
			}
			for (Entry send : this.collapsed) {
				judgeCollapsed(where, send, lastWins, takes, violations);
			}
		}

		/**
		 * The earliest the k-th message can be due: on a first-wins queue, its send's
		 * delay after that began; on a last-wins one, the delay of the last send applied
		 * to it (each collapsed send restarts it, sooner or later than before). Which was
		 * last is known only where the calls did not overlap, so the earliest of those
		 * that may have been: the message's send and each collapsed send that may have
		 * met it (it ended after the message's send began and began before the next
		 * message's ended), unless a send that surely met it (it began after the
		 * message's send ended and ended before the next one's began) began after it
		 * ended.
		 */
		private long earliestDue(int k, boolean lastWins) {
			Entry message = this.scheduled.get(k);
			if (!lastWins) {
				return DelayedDeliveries.earliestDue(message);
			}
			Entry next = (k + 1 < this.scheduled.size()) ? this.scheduled.get(k + 1) : null;
			long nextStart = (next != null) ? next.start() : Long.MAX_VALUE;
			long nextEnd = (next != null) ? next.end() : Long.MAX_VALUE;
			long lastSureStart = message.start();
			List<Entry> maybe = new ArrayList<>(List.of(message));
			for (Entry send : this.collapsed) {
				if (send.end() > message.start() && send.start() < nextEnd) {
					maybe.add(send);
					if (message.end() < send.start() && send.end() < nextStart) {
						lastSureStart = Math.max(lastSureStart, send.start());
					}
				}
			}
			long sureStart = lastSureStart;
			return maybe.stream()
				.filter((send) -> send.end() >= sureStart)
				.mapToLong(DelayedDeliveries::earliestDue)
				.min()
				.orElseThrow();
		}

		private void judgeCollapsed(String where, Entry send, boolean lastWins, Takes takes, List<String> violations) {
			long before = this.scheduled.stream().filter((message) -> message.start() < send.end()).count();
			long delivered = this.taken.stream().filter((take) -> take.end() < send.start()).count();
			if (before == 0 || delivered >= before) {
				violations.add(where + ": collapsed, and no message of the payload was pending (" + before
						+ " scheduled, " + delivered + " delivered before): " + send);
				return;
			}
			Entry message = this.scheduled.get((int) before - 1);
			if (lastWins || message.end() >= send.start()) {
				return;
			}
			// first-wins keeps the pending message's due time: once a take began past it
			// (and past a hint's age) and ended, the message was ready, no longer pending
			Entry take = takes.between(latestDue(message) + HINT_MAX_AGE_MICROS, send.start());
			if (take != null) {
				violations
					.add(where + ": collapsed into a message that was due and moved to the ready list (first-wins keeps"
							+ " the first due time):\n    " + message + "\n    " + take + "\n    " + send);
			}
		}

	}

	/**
	 * A queue's takes, empty ones included, in the order they began, with the one that
	 * ended first from each on: which take began after one moment and ended before
	 * another, in log n.
	 */
	private static final class Takes {

		private final long[] starts;

		private final Entry[] firstToEnd;

		Takes(List<Entry> takes) {
			List<Entry> sorted = takes.stream().sorted(Comparator.comparingLong(Entry::start)).toList();
			this.starts = sorted.stream().mapToLong(Entry::start).toArray();
			this.firstToEnd = new Entry[sorted.size()];
			for (int i = sorted.size() - 1; i >= 0; i--) {
				Entry take = sorted.get(i);
				Entry later = (i + 1 < sorted.size()) ? this.firstToEnd[i + 1] : null;
				this.firstToEnd[i] = (later != null && later.end() < take.end()) ? later : take;
			}
		}

		/**
		 * A take that began after {@code after} and ended before {@code before}.
		 */
		@Nullable Entry between(long after, long before) {
			// the first take that began after 'after'
			int from = 0;
			int to = this.starts.length;
			while (from < to) {
				int middle = (from + to) >>> 1;
				if (this.starts[middle] > after) {
					to = middle;
				}
				else {
					from = middle + 1;
				}
			}
			if (from == this.starts.length || this.firstToEnd[from].end() >= before) {
				return null;
			}
			return this.firstToEnd[from];
		}

	}

}
