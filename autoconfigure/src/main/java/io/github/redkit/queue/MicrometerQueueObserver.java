package io.github.redkit.queue;

import java.time.Duration;
import java.util.Locale;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Counts messages in {@code redkit.queue.messages} (tags {@code queue},
 * {@code outcome=processed|failed|retried|dead-lettered|dropped|not-owned}) and times
 * listeners in {@code redkit.queue.processing} (tags {@code queue},
 * {@code outcome=success|failure}).
 */
public class MicrometerQueueObserver implements QueueObserver {

	private final MeterRegistry registry;

	/**
	 * Creates an observer.
	 * @param registry where meters are registered
	 */
	public MicrometerQueueObserver(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void processed(String queue) {
		count(queue, "processed");
	}

	@Override
	public void failed(String queue, FailureOutcome outcome) {
		count(queue, "failed");
		count(queue, outcome.name().toLowerCase(Locale.ROOT).replace('_', '-'));
	}

	@Override
	public void handled(String queue, Duration duration, boolean success) {
		Timer.builder("redkit.queue.processing")
			.description("Time spent in queue listeners")
			.tag("queue", queue)
			.tag("outcome", success ? "success" : "failure")
			.register(this.registry)
			.record(duration);
	}

	private void count(String queue, String outcome) {
		Counter.builder("redkit.queue.messages")
			.description("Messages settled, by outcome")
			.tag("queue", queue)
			.tag("outcome", outcome)
			.register(this.registry)
			.increment();
	}

}
