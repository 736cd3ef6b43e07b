package io.github.redkit.queue;

import java.util.Collection;
import java.util.List;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Gauges of the configured queues, read from Redis when the registry is scraped:
 * {@code redkit.queue.depth} (tags {@code queue},
 * {@code state=ready|delayed|in-flight|dead-letter}) and {@code redkit.queue.oldest.age}
 * (seconds, oldest ready message). A queue whose Redis cannot be read reports NaN.
 */
public final class QueueGauges {

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
	 * @param registry the registry
	 */
	public void bindTo(MeterRegistry registry) {
		QueueTemplate template = this.template;
		for (String queue : this.queues) {
			depth(registry, template, queue, "ready", (t) -> t.size(queue));
			depth(registry, template, queue, "delayed", (t) -> t.stats(queue).delayed());
			depth(registry, template, queue, "in-flight", (t) -> t.stats(queue).inFlight());
			depth(registry, template, queue, "dead-letter", (t) -> t.stats(queue).deadLetters());
			Gauge
				.builder("redkit.queue.oldest.age", template,
						safe((t) -> t.stats(queue).oldestAge().toMillis() / 1000.0))
				.description("Age of the oldest ready message")
				.baseUnit("seconds")
				.tag("queue", queue)
				.register(registry);
		}
	}

	private static void depth(MeterRegistry registry, QueueTemplate template, String queue, String state,
			ToDoubleFunction<QueueTemplate> value) {
		Gauge.builder("redkit.queue.depth", template, safe(value))
			.description("Messages in a queue, by state")
			.tag("queue", queue)
			.tag("state", state)
			.register(registry);
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
