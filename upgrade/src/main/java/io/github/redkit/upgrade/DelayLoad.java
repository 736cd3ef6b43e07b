package io.github.redkit.upgrade;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueTemplate;

/**
 * Delayed sends of a few equal payloads to a first-wins and a last-wins queue, so that
 * one version's pending message is collapsed by the other's send ({@code queue_delay}
 * changed since 0.1.0), and takes of what falls due.
 */
final class DelayLoad {

	static final String FIRST_WINS = "upgrade-first-wins";

	static final String LAST_WINS = "upgrade-last-wins";

	static final List<String> QUEUES = List.of(FIRST_WINS, LAST_WINS);

	// few payloads, so that a send meets one pending from the other version
	private static final int PAYLOADS = 4;

	private final QueueTemplate queues;

	private final HistoryLog history;

	DelayLoad(QueueTemplate queues, HistoryLog history) {
		this.queues = queues;
		this.history = history;
	}

	void send() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		String queue = QUEUES.get(random.nextInt(QUEUES.size()));
		String payload = "p" + random.nextInt(PAYLOADS);
		Duration delay = Duration.ofMillis(30 + random.nextInt(70));
		this.history.call("queue-delay", "send", queue, () -> this.queues.sendDelayed(queue, new Job(payload), delay),
				(scheduled, fields) -> {
					fields.put("outcome", "ok");
					fields.put("id", payload);
					fields.put("scheduled", scheduled);
					// the due time Redis set is this after the call began and before it
					// ended, or a pending message's (DelayedDeliveries judges which)
					fields.put("delay", delay.toMillis());
				});
	}

	/**
	 * Takes and acknowledges one due message of each queue.
	 * @return whether there was one
	 */
	boolean take() {
		boolean any = false;
		for (String queue : QUEUES) {
			Optional<QueueMessage<Job>> taken = this.history.call("queue-delay", "take", queue,
					() -> this.queues.receive(queue, Job.class), (message, fields) -> {
						fields.put("outcome", message.isPresent() ? "ok" : "empty");
						message.ifPresent((received) -> {
							Job job = received.payload();
							fields.put("id", (job != null) ? job.id() : "unreadable");
							fields.put("deliveries", received.deliveries());
						});
					});
			if (taken == null || taken.isEmpty()) {
				continue;
			}
			any = true;
			QueueMessage<Job> message = taken.get();
			this.history.call("queue-delay", "ack", queue, () -> this.queues.ack(message),
					(acked, fields) -> fields.put("outcome", acked ? "ok" : "refused"));
		}
		return any;
	}

	/**
	 * Takes until nothing is left, delayed ones included (the last instance, after every
	 * sender stopped).
	 */
	void drain() {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (System.nanoTime() < deadline) {
			if (!take() && QUEUES.stream().allMatch(this::empty)) {
				return;
			}
			LockSupport.parkNanos(5_000_000);
		}
	}

	private boolean empty(String queue) {
		QueueStats stats = this.queues.stats(queue);
		return stats.ready() + stats.delayed() + stats.inFlight() == 0;
	}

}
