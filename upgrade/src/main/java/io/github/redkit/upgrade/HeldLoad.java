package io.github.redkit.upgrade;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueTemplate;
import org.jspecify.annotations.Nullable;

/**
 * Messages of a list queue with a short visibility timeout, each take held a moment and
 * then settled one of four ways: acknowledged, extended and then acknowledged, failed (a
 * retry after a short backoff) or released (given back, as a stop gives back what it took
 * and did not start): whichever version takes it next, a message taken once is taken
 * until acknowledged, and no held one is taken by another consumer within its visibility
 * timeout ({@code queue_claim}, {@code queue_fail} changed since 0.1.0).
 */
final class HeldLoad {

	static final String QUEUE = "upgrade-held";

	/** The queue's visibility timeout (the run's properties set it). */
	static final Duration VISIBILITY = Duration.ofSeconds(5);

	/** What an extend asks for: longer than the visibility timeout. */
	static final Duration EXTENDED = Duration.ofSeconds(8);

	private final QueueTemplate queues;

	private final HistoryLog history;

	private final String instance;

	private final AtomicLong sent = new AtomicLong();

	HeldLoad(QueueTemplate queues, HistoryLog history, String instance) {
		this.queues = queues;
		this.history = history;
		this.instance = instance;
	}

	void send() {
		String id = this.instance + "-h" + this.sent.incrementAndGet();
		this.history.call("held", "send", QUEUE, () -> {
			this.queues.send(QUEUE, new Job(id));
			return id;
		}, (sent, fields) -> {
			fields.put("outcome", "ok");
			fields.put("id", sent);
		});
	}

	/**
	 * Takes one message, holds it a moment (far within its visibility timeout) and
	 * settles it one way at random.
	 * @return whether there was one
	 */
	boolean take() {
		Optional<QueueMessage<Job>> taken = receive();
		if (taken == null || taken.isEmpty()) {
			return false;
		}
		QueueMessage<Job> message = taken.get();
		ThreadLocalRandom random = ThreadLocalRandom.current();
		LockSupport.parkNanos(Duration.ofMillis(random.nextInt(50)).toNanos());
		switch (random.nextInt(5)) {
			case 0 -> settle("extend", message, () -> this.queues.extend(message, EXTENDED));
			case 1 -> {
				FailureOutcome outcome = this.history.call("held", "fail", QUEUE,
						() -> this.queues.fail(message, new IllegalStateException("planned")), (failed, fields) -> {
							fields.put("outcome", (failed == FailureOutcome.RETRIED) ? "ok" : "refused");
							fields.put("id", id(message));
							fields.put("result", String.valueOf(failed));
						});
				if (outcome == FailureOutcome.RETRIED) {
					return true;
				}
			}
			case 2 -> {
				if (settle("release", message, () -> this.queues.release(message))) {
					return true;
				}
			}
			default -> {
			}
		}
		settle("ack", message, () -> this.queues.ack(message));
		return true;
	}

	// the drain's take: acknowledged at once
	private boolean takeAndAck() {
		Optional<QueueMessage<Job>> taken = receive();
		if (taken == null || taken.isEmpty()) {
			return false;
		}
		settle("ack", taken.get(), () -> this.queues.ack(taken.get()));
		return true;
	}

	private @Nullable Optional<QueueMessage<Job>> receive() {
		return this.history.call("held", "take", QUEUE, () -> this.queues.receive(QUEUE, Job.class),
				(received, fields) -> {
					fields.put("outcome", received.isPresent() ? "ok" : "empty");
					received.ifPresent((message) -> {
						fields.put("id", id(message));
						fields.put("deliveries", message.deliveries());
					});
				});
	}

	private boolean settle(String op, QueueMessage<Job> message, Callable<Boolean> call) {
		Boolean done = this.history.call("held", op, QUEUE, call, (applied, fields) -> {
			fields.put("outcome", applied ? "ok" : "refused");
			fields.put("id", id(message));
		});
		return Boolean.TRUE.equals(done);
	}

	private static String id(QueueMessage<Job> message) {
		Job job = message.payload();
		return (job != null) ? job.id() : "unreadable";
	}

	/**
	 * Takes until nothing is left, ready, in flight or waiting for its retry (the last
	 * instance, after every sender stopped; a message another instance held when it
	 * stopped comes back after its visibility timeout).
	 */
	void drain() {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		while (System.nanoTime() < deadline) {
			if (!takeAndAck()) {
				QueueStats stats = this.queues.stats(QUEUE);
				if (stats.ready() + stats.inFlight() + stats.delayed() == 0) {
					break;
				}
				LockSupport.parkNanos(20_000_000);
			}
		}
		this.history.call("held", "final", QUEUE, () -> this.queues.stats(QUEUE), (stats, fields) -> {
			fields.put("outcome", "ok");
			fields.put("inFlight", stats.inFlight());
			fields.put("ready", stats.ready());
			fields.put("delayed", stats.delayed());
		});
	}

	static Map<String, String> properties() {
		return Map.of("visibility-timeout", VISIBILITY.toMillis() + "ms", "max-attempts", "1000", "backoff.type",
				"fixed", "backoff.delay", "20ms", "backoff.jitter", "0");
	}

}
