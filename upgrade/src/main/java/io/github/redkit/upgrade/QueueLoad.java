package io.github.redkit.upgrade;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueTemplate;

/**
 * Sends numbered messages, and takes and acknowledges them, each take written with the
 * message's id and delivery count.
 */
final class QueueLoad {

	static final String QUEUE = "upgrade-queue";

	private final QueueTemplate queues;

	private final HistoryLog history;

	private final String instance;

	private final AtomicLong sent = new AtomicLong();

	QueueLoad(QueueTemplate queues, HistoryLog history, String instance) {
		this.queues = queues;
		this.history = history;
		this.instance = instance;
	}

	void send() {
		String id = this.instance + "-" + this.sent.incrementAndGet();
		this.history.call("queue", "send", QUEUE, () -> {
			this.queues.send(QUEUE, new Job(id));
			return id;
		}, (sent, fields) -> {
			fields.put("outcome", "ok");
			fields.put("id", sent);
		});
	}

	/**
	 * Takes one message and acknowledges it.
	 * @return whether there was one
	 */
	boolean take() {
		Optional<QueueMessage<Job>> taken = this.history.call("queue", "take", QUEUE,
				() -> this.queues.receive(QUEUE, Job.class), (message, fields) -> {
					fields.put("outcome", message.isPresent() ? "ok" : "empty");
					message.ifPresent((received) -> {
						Job job = received.payload();
						fields.put("id", (job != null) ? job.id() : "unreadable");
						fields.put("deliveries", received.deliveries());
					});
				});
		if (taken == null || taken.isEmpty()) {
			return false;
		}
		QueueMessage<Job> message = taken.get();
		Job job = message.payload();
		this.history.call("queue", "ack", QUEUE, () -> this.queues.ack(message), (acked, fields) -> {
			fields.put("outcome", acked ? "ok" : "refused");
			fields.put("id", (job != null) ? job.id() : "unreadable");
		});
		return true;
	}

	/**
	 * Takes until the queue stays empty for a moment (the last instance, after every
	 * sender stopped).
	 */
	void drain() {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		int empty = 0;
		while (empty < 20 && System.nanoTime() < deadline) {
			if (take()) {
				empty = 0;
			}
			else {
				empty++;
				LockSupport.parkNanos(5_000_000);
			}
		}
	}

}
