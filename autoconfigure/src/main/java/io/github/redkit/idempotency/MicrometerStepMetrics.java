package io.github.redkit.idempotency;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@link StepMetrics} as the Micrometer counter {@code redkit.idempotency.steps} tagged
 * with {@code step} and {@code outcome}. The registry is looked up on first use, so that
 * its auto-configuration may run after Redkit's.
 */
public class MicrometerStepMetrics implements StepMetrics {

	private final Supplier<MeterRegistry> registry;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	/**
	 * Creates metrics.
	 * @param registry supplies the registry, or {@code null} when there is none
	 */
	public MicrometerStepMetrics(Supplier<MeterRegistry> registry) {
		this.registry = registry;
	}

	@Override
	public void record(String step, String outcome) {
		Counter counter = this.counters.computeIfAbsent(step + '|' + outcome, (key) -> {
			MeterRegistry meters = this.registry.get();
			return (meters != null) ? Counter.builder("redkit.idempotency.steps")
				.description("Step claims by step and outcome")
				.tag("step", step)
				.tag("outcome", outcome)
				.register(meters) : null;
		});
		if (counter != null) {
			counter.increment();
		}
	}

}
