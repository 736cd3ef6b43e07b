package io.github.redkit.upgrade;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
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
		if (ThreadLocalRandom.current().nextInt(3) == 0) {
			sendAll();
			return;
		}
		String id = this.instance + "-" + this.sent.incrementAndGet();
		this.history.call("queue", "send", QUEUE, () -> {
			this.queues.send(QUEUE, new Job(id));
			return id;
		}, (sent, fields) -> {
			fields.put("outcome", "ok");
			fields.put("id", sent);
		});
	}

	// sendAll's script changed since 0.1.0 (one script per chunk, a pipelined RPUSH
	// before): its messages must reach the other version too
	private void sendAll() {
		List<String> ids = List.of(this.instance + "-" + this.sent.incrementAndGet(),
				this.instance + "-" + this.sent.incrementAndGet(), this.instance + "-" + this.sent.incrementAndGet());
		this.history.call("queue", "send-all", QUEUE, () -> {
			this.queues.sendAll(QUEUE, ids.stream().map(Job::new).toList());
			return ids;
		}, (sent, fields) -> {
			fields.put("outcome", "ok");
			fields.put("ids", String.join(",", sent));
		});
	}

	/**
	 * Takes one message and acknowledges it: apart, or (one time in two) together with
	 * taking the next one, as a listener container does ({@code queue_claim} with
	 * acknowledgements, changed since 0.1.0), then acknowledges that one apart.
	 * @return whether there was one
	 */
	boolean take() {
		Optional<QueueMessage<Job>> taken = this.history.call("queue", "take", QUEUE,
				() -> this.queues.receive(QUEUE, Job.class), QueueLoad::received);
		if (taken == null || taken.isEmpty()) {
			return false;
		}
		QueueMessage<Job> first = taken.get();
		QueueMessage<Job> message = first;
		if (ThreadLocalRandom.current().nextBoolean()) {
			Optional<QueueMessage<Job>> next = this.history.call("queue", "ack-take", QUEUE,
					() -> this.queues.ackAndReceive(first, Job.class), (received, fields) -> {
						received(received, fields);
						fields.put("acked", id(first));
					});
			if (next == null || next.isEmpty()) {
				return true;
			}
			message = next.get();
		}
		ack(message);
		return true;
	}

	private void ack(QueueMessage<Job> message) {
		this.history.call("queue", "ack", QUEUE, () -> this.queues.ack(message), (acked, fields) -> {
			fields.put("outcome", acked ? "ok" : "refused");
			fields.put("id", id(message));
		});
	}

	private static void received(Optional<QueueMessage<Job>> message, Map<String, Object> fields) {
		fields.put("outcome", message.isPresent() ? "ok" : "empty");
		message.ifPresent((received) -> {
			fields.put("id", id(received));
			fields.put("deliveries", received.deliveries());
		});
	}

	private static String id(QueueMessage<Job> message) {
		Job job = message.payload();
		return (job != null) ? job.id() : "unreadable";
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
		// an acknowledgement that did not apply leaves its message in flight
		this.history.call("queue", "final", QUEUE, () -> this.queues.stats(QUEUE), (stats, fields) -> {
			fields.put("outcome", "ok");
			fields.put("inFlight", stats.inFlight());
			fields.put("ready", stats.ready());
		});
	}

}
