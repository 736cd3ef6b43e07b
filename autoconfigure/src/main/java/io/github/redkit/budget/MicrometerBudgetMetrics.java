package io.github.redkit.budget;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@link BudgetMetrics} as the Micrometer counter {@code redkit.budget.changes} tagged
 * with {@code operation} and {@code outcome}. The registry is looked up on first use, so
 * that its auto-configuration may run after Redkit's.
 */
public class MicrometerBudgetMetrics implements BudgetMetrics {

	private final Supplier<MeterRegistry> registry;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	/**
	 * Creates metrics.
	 * @param registry supplies the registry, or {@code null} when there is none
	 */
	public MicrometerBudgetMetrics(Supplier<MeterRegistry> registry) {
		this.registry = registry;
	}

	@Override
	public void record(String operation, String outcome) {
		Counter counter = this.counters.computeIfAbsent(operation + '|' + outcome, (key) -> {
			MeterRegistry meters = this.registry.get();
			return (meters != null) ? Counter.builder("redkit.budget.changes")
				.description("Budget changes by operation and outcome")
				.tag("operation", operation)
				.tag("outcome", outcome)
				.register(meters) : null;
		});
		if (counter != null) {
			counter.increment();
		}
	}

}
