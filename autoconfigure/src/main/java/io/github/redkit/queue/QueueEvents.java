package io.github.redkit.queue;

import java.time.Duration;
import java.util.Locale;

import io.github.redkit.core.RedkitMeter;
import io.github.redkit.core.RedkitMetrics;

/**
 * What happens to messages, recorded through {@link RedkitMetrics}. Tags: {@code queue}
 * (a configured or annotated queue name, never a message id) and {@code outcome}.
 */
final class QueueEvents {

	/**
	 * Messages settled; outcome: processed, failed, retried, dead-lettered, dropped,
	 * not-owned (a failure reported after the visibility was lost) or late-ack (an ack
	 * after the visibility was lost: the message is, or will be, delivered again).
	 */
	static final RedkitMeter MESSAGES = RedkitMeter.counter("redkit.queue.messages", "Messages settled, by outcome");

	/** Time spent in queue listeners; outcome: success or failure. */
	static final RedkitMeter PROCESSING = RedkitMeter.timer("redkit.queue.processing", "Time spent in queue listeners");

	private final RedkitMetrics metrics;

	QueueEvents(RedkitMetrics metrics) {
		this.metrics = metrics;
	}

	void processed(String queue) {
		this.metrics.increment(MESSAGES, "queue", queue, "outcome", "processed");
	}

	void lateAck(String queue) {
		this.metrics.increment(MESSAGES, "queue", queue, "outcome", "late-ack");
	}

	void failed(String queue, FailureOutcome outcome) {
		this.metrics.increment(MESSAGES, "queue", queue, "outcome", "failed");
		this.metrics.increment(MESSAGES, "queue", queue, "outcome",
				outcome.name().toLowerCase(Locale.ROOT).replace('_', '-'));
	}

	void handled(String queue, Duration duration, boolean success) {
		this.metrics.record(PROCESSING, duration.toNanos(), "queue", queue, "outcome", success ? "success" : "failure");
	}

}
