package io.github.redkit.upgrade;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.queue.DeadLetter;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueTemplate;

/**
 * Messages of a queue with one attempt: each taken one is failed (dead-lettered) or
 * acknowledged at random, and every dead letter is moved back by
 * {@code requeueDeadLetters}, or one listed by {@code deadLetters} by its id with
 * {@code requeueDeadLetter} ({@code queue_requeue} changed since 0.1.0, for both), by
 * whichever version comes next.
 */
final class DeadLetterLoad {

	static final String QUEUE = "upgrade-dead";

	private final QueueTemplate queues;

	private final HistoryLog history;

	private final String instance;

	private final AtomicLong sent = new AtomicLong();

	DeadLetterLoad(QueueTemplate queues, HistoryLog history, String instance) {
		this.queues = queues;
		this.history = history;
		this.instance = instance;
	}

	void step() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		if (random.nextInt(3) == 0) {
			String id = this.instance + "-d" + this.sent.incrementAndGet();
			this.history.call("dead-letter", "send", QUEUE, () -> {
				this.queues.send(QUEUE, new Job(id));
				return id;
			}, (sent, fields) -> {
				fields.put("outcome", "ok");
				fields.put("id", sent);
			});
		}
		if (random.nextInt(4) == 0) {
			if (random.nextBoolean()) {
				requeue();
			}
			else {
				requeueOne();
			}
		}
		take(random.nextBoolean());
	}

	private void requeue() {
		this.history.call("dead-letter", "requeue", QUEUE, () -> this.queues.requeueDeadLetters(QUEUE),
				(moved, fields) -> {
					fields.put("outcome", "ok");
					fields.put("moved", moved);
				});
	}

	/**
	 * Moves back one dead letter by its id ({@code requeueDeadLetter}), one of those the
	 * listing shows, when there is one.
	 */
	private void requeueOne() {
		List<DeadLetter> listed = this.history.call("dead-letter", "list", QUEUE,
				() -> this.queues.deadLetters(QUEUE, 5), (letters, fields) -> {
					fields.put("outcome", "ok");
					fields.put("listed", letters.size());
				});
		if (listed == null || listed.isEmpty()) {
			return;
		}
		String message = listed.get(ThreadLocalRandom.current().nextInt(listed.size())).id();
		this.history.call("dead-letter", "requeue-one", QUEUE, () -> this.queues.requeueDeadLetter(QUEUE, message),
				(moved, fields) -> {
					fields.put("outcome", "ok");
					fields.put("message", message);
					fields.put("moved", moved ? 1 : 0);
				});
	}

	private boolean take(boolean fail) {
		Optional<QueueMessage<Job>> taken = this.history.call("dead-letter", "take", QUEUE,
				() -> this.queues.receive(QUEUE, Job.class), (message, fields) -> {
					fields.put("outcome", message.isPresent() ? "ok" : "empty");
					message.ifPresent((received) -> {
						fields.put("id", id(received));
						fields.put("deliveries", received.deliveries());
					});
				});
		if (taken == null || taken.isEmpty()) {
			return false;
		}
		QueueMessage<Job> message = taken.get();
		if (fail) {
			this.history.call("dead-letter", "fail", QUEUE,
					() -> this.queues.fail(message, new IllegalStateException("upgrade")), (outcome, fields) -> {
						fields.put("outcome", (outcome == FailureOutcome.DEAD_LETTERED) ? "ok" : "refused");
						fields.put("id", id(message));
						fields.put("message", message.id());
						fields.put("answer", String.valueOf(outcome));
					});
		}
		else {
			this.history.call("dead-letter", "ack", QUEUE, () -> this.queues.ack(message), (acked, fields) -> {
				fields.put("outcome", acked ? "ok" : "refused");
				fields.put("id", id(message));
			});
		}
		return true;
	}

	/**
	 * Requeues and acknowledges until nothing is left (the last instance, after every
	 * sender stopped).
	 */
	void drain() {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (System.nanoTime() < deadline) {
			requeue();
			boolean any = false;
			while (take(false)) {
				any = true;
			}
			QueueStats stats = this.queues.stats(QUEUE);
			if (!any && stats.ready() + stats.inFlight() + stats.deadLetters() == 0) {
				break;
			}
		}
		this.history.call("dead-letter", "final", QUEUE, () -> this.queues.stats(QUEUE),
				(stats, fields) -> fields.putAll(Map.of("outcome", "ok", "inFlight", stats.inFlight(), "dead",
						stats.deadLetters(), "ready", stats.ready())));
	}

	private static String id(QueueMessage<Job> message) {
		Job job = message.payload();
		return (job != null) ? job.id() : "unreadable";
	}

}
