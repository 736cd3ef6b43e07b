package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.Locale;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * What happens to messages, recorded through {@link RedkitMetrics}. Tags: {@code queue}
 * (a configured or annotated queue name, never a message id) and {@code outcome}.
 */
final class QueueEvents {

	/**
	 * Late acknowledgements are logged as the template that sent them: the log categories
	 * an application configures stay those of the template.
	 */
	private static final Log logger = LogFactory.getLog(RedisQueueTemplate.class);

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
	 * Records acknowledgements; those that came after their take was lost are counted and
	 * logged apart: the handling they report is repeated elsewhere.
	 * @param queue the queue name
	 * @param acks the messages acknowledged
	 * @param acked how many of them Redis found still in flight
	 */
	void acknowledged(String queue, Collection<? extends QueueMessage<?>> acks, long acked) {
		for (long n = 0; n < acked; n++) {
			processed(queue);
		}
		long late = acks.size() - acked - acks.stream().filter((ack) -> TakenMessage.of(ack).trimmed()).count();
		if (late <= 0) {
			return;
		}
		for (long n = 0; n < late; n++) {
			lateAck(queue);
		}
		String which = (acks.size() == 1) ? "Message " + acks.iterator().next().id()
				: late + " of the messages " + acks.stream().map(QueueMessage::id).toList();
		logger.warn(which + " of queue '" + queue + "' acknowledged after its visibility timeout expired and it was"
				+ " taken again: it is, or will be, delivered again (extend the visibility of long work)");
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
