package io.github.redkit.queue.internal;

import java.util.Collection;
import java.util.List;
import java.util.function.ToDoubleFunction;

import io.github.redkit.core.RedkitMeter;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.queue.QueueTemplate;

/**
 * Gauges of the configured queues, read from Redis when the registry is scraped:
 * {@code redkit.queue.depth} (tags {@code queue},
 * {@code state=ready|delayed|in-flight|dead-letter}) and {@code redkit.queue.oldest.age}
 * (seconds, oldest ready message). A queue whose Redis cannot be read reports NaN.
 */
public final class QueueGauges {

	private static final RedkitMeter DEPTH = RedkitMeter.gauge("redkit.queue.depth", "Messages in a queue, by state");

	private static final RedkitMeter OLDEST_AGE = RedkitMeter.gauge("redkit.queue.oldest.age",
			"Age of the oldest ready message, in seconds");

	private final QueueTemplate template;

	private final Collection<String> queues;

	/**
	 * Creates the gauges of some queues.
	 * @param template where the statistics come from
	 * @param queues the queue names
	 */
	public QueueGauges(QueueTemplate template, Collection<String> queues) {
		this.template = template;
		this.queues = List.copyOf(queues);
	}

	/**
	 * Registers the gauges.
	 * @param metrics where to register them
	 */
	public void bindTo(RedkitMetrics metrics) {
		for (String queue : this.queues) {
			depth(metrics, queue, "ready", (t) -> t.size(queue));
			depth(metrics, queue, "delayed", (t) -> t.stats(queue).delayed());
			depth(metrics, queue, "in-flight", (t) -> t.stats(queue).inFlight());
			depth(metrics, queue, "dead-letter", (t) -> t.stats(queue).deadLetters());
			metrics.gauge(OLDEST_AGE, this.template, safe((t) -> t.stats(queue).oldestAge().toMillis() / 1000.0),
					"queue", queue);
		}
	}

	private void depth(RedkitMetrics metrics, String queue, String state, ToDoubleFunction<QueueTemplate> value) {
		metrics.gauge(DEPTH, this.template, safe(value), "queue", queue, "state", state);
	}

	private static ToDoubleFunction<QueueTemplate> safe(ToDoubleFunction<QueueTemplate> value) {
		return (template) -> {
			try {
				return value.applyAsDouble(template);
			}
			catch (RuntimeException ex) {
				return Double.NaN;
			}
		};
	}

}
