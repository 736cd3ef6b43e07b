package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.Locale;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.queue.FailureOutcome;

/**
 * What happens to messages, recorded through {@link RedkitMetrics}. Tags: {@code queue}
 * (a configured or annotated queue name, never a message id) and {@code outcome}.
 */
final class QueueEvents {

	private final RedkitMetrics metrics;

	QueueEvents(RedkitMetrics metrics) {
		this.metrics = metrics;
	}

	void processed(String queue) {
		this.metrics.increment(QueueMeters.MESSAGES, "queue", queue, "outcome", "processed");
	}

	void lateAck(String queue) {
		this.metrics.increment(QueueMeters.MESSAGES, "queue", queue, "outcome", "late-ack");
	}

	/**
	 * A held message whose stream entry a writer deleted (a trim), found by its holder.
	 */
	void trimmed(String queue) {
		this.metrics.increment(QueueMeters.MESSAGES, "queue", queue, "outcome", "trimmed");
	}

	void failed(String queue) {
		this.metrics.increment(QueueMeters.MESSAGES, "queue", queue, "outcome", "failed");
	}

	void failed(String queue, FailureOutcome outcome) {
		failed(queue);
		this.metrics.increment(QueueMeters.MESSAGES, "queue", queue, "outcome",
				outcome.name().toLowerCase(Locale.ROOT).replace('_', '-'));
	}

	void handled(String queue, Duration duration, boolean success) {
		this.metrics.record(QueueMeters.PROCESSING, duration.toNanos(), "queue", queue, "outcome",
				success ? "success" : "failure");
	}

}
