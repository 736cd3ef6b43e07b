package io.github.redkit.queue.internal;

import java.util.Collection;
import java.util.List;
import java.util.function.ToDoubleFunction;

import io.github.redkit.core.RedkitMeter;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.BackgroundReads;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueTemplate;

/**
 * Gauges of the configured queues: {@code redkit.queue.depth} (tags {@code queue},
 * {@code state=ready|delayed|in-flight|dead-letter}) and {@code redkit.queue.oldest.age}
 * (seconds, oldest ready message). A scrape never waits for Redis: each queue's
 * statistics are read in the background ({@link BackgroundReads}, one queue at a time); a
 * queue whose Redis cannot be read, or has not answered within the refresh interval,
 * reports NaN. Closing the gauges ends their reads' thread.
 */
public final class QueueGauges implements AutoCloseable {

	private static final RedkitMeter DEPTH = RedkitMeter.gauge("redkit.queue.depth", "Messages in a queue, by state");

	private static final RedkitMeter OLDEST_AGE = RedkitMeter.gauge("redkit.queue.oldest.age",
			"Age of the oldest ready message, in seconds");

	private final QueueTemplate template;

	private final Collection<String> queues;

	private final BackgroundReads reads;

	/**
	 * Creates the gauges of some queues.
	 * @param template where the statistics come from
	 * @param queues the queue names
	 * @param reads reads them in the background
	 */
	public QueueGauges(QueueTemplate template, Collection<String> queues, BackgroundReads reads) {
		this.template = template;
		this.queues = List.copyOf(queues);
		this.reads = reads;
	}

	/**
	 * Registers the gauges.
	 * @param metrics where to register them
	 */
	public void bindTo(RedkitMetrics metrics) {
		for (String queue : this.queues) {
			// one read of every state a time
			BackgroundReads.Value<QueueStats> stats = this.reads.value(() -> this.template.stats(queue));
			depth(metrics, queue, "ready", stats, QueueStats::ready);
			depth(metrics, queue, "delayed", stats, QueueStats::delayed);
			depth(metrics, queue, "in-flight", stats, QueueStats::inFlight);
			depth(metrics, queue, "dead-letter", stats, QueueStats::deadLetters);
			metrics.gauge(OLDEST_AGE, this, value(stats, (s) -> s.oldestAge().toMillis() / 1000.0), "queue", queue);
		}
	}

	/**
	 * Ends the reads' thread, with the application context.
	 */
	@Override
	public void close() {
		this.reads.close();
	}

	private void depth(RedkitMetrics metrics, String queue, String state, BackgroundReads.Value<QueueStats> stats,
			ToDoubleFunction<QueueStats> value) {
		metrics.gauge(DEPTH, this, value(stats, value), "queue", queue, "state", state);
	}

	// the gauges' source is this bean, which the context keeps: a registry may hold its
	// sources weakly
	private static ToDoubleFunction<QueueGauges> value(BackgroundReads.Value<QueueStats> stats,
			ToDoubleFunction<QueueStats> value) {
		return (gauges) -> {
			QueueStats last = stats.get();
			return (last != null) ? value.applyAsDouble(last) : Double.NaN;
		};
	}

}
