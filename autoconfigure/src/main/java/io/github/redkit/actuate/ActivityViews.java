package io.github.redkit.actuate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Activity since start: the cumulative counts of Redkit's meters in the application's
 * {@link MeterRegistry}, by limit, lock or queue name and outcome. A dashboard takes the
 * difference of two answers to draw rates; nothing is read from Redis.
 */
public class ActivityViews {

	private final Supplier<@Nullable MeterRegistry> registry;

	/**
	 * Creates the views.
	 * @param registry supplies the application's registry, or {@code null} without one
	 */
	public ActivityViews(Supplier<@Nullable MeterRegistry> registry) {
		this.registry = registry;
	}

	/**
	 * The counts, at this moment.
	 * @return {@code at} (epoch milliseconds) and counts per capability, name and outcome
	 */
	public Map<String, Object> activity() {
		MeterRegistry meters = this.registry.get();
		Map<String, Object> activity = new LinkedHashMap<>();
		activity.put("at", System.currentTimeMillis());
		Map<String, Map<String, Long>> rateLimits = counts(meters, "limit", "redkit.ratelimit.decisions");
		rateLimits.replaceAll((limit, outcomes) -> rateLimitOutcomes(outcomes));
		activity.put("rateLimits", rateLimits);
		activity.put("concurrency", counts(meters, "limit", "redkit.concurrency.permits"));
		activity.put("locks", counts(meters, "name", "redkit.lock.acquire"));
		// settled messages (processed, failed, ...) and listener calls (success, failure)
		activity.put("queues", counts(meters, "queue", "redkit.queue.messages", "redkit.queue.processing"));
		return activity;
	}

	private static Map<String, Map<String, Long>> counts(@Nullable MeterRegistry meters, String nameTag,
			String... meterNames) {
		Map<String, Map<String, Long>> counts = new TreeMap<>();
		if (meters == null) {
			return counts;
		}
		for (String meterName : meterNames) {
			for (Meter meter : meters.find(meterName).meters()) {
				String name = meter.getId().getTag(nameTag);
				String outcome = meter.getId().getTag("outcome");
				if (name != null && outcome != null) {
					counts.computeIfAbsent(name, (key) -> new TreeMap<>()).merge(outcome, count(meter), Long::sum);
				}
			}
		}
		return counts;
	}

	// always the three; failures count together whichever failure mode applied
	private static Map<String, Long> rateLimitOutcomes(Map<String, Long> outcomes) {
		Map<String, Long> three = new LinkedHashMap<>();
		three.put("allowed", outcomes.getOrDefault("allowed", 0L));
		three.put("denied", outcomes.getOrDefault("denied", 0L));
		three.put("failed", outcomes.getOrDefault("failed-open", 0L) + outcomes.getOrDefault("failed-closed", 0L));
		return three;
	}

	private static long count(Meter meter) {
		if (meter instanceof Counter counter) {
			return (long) counter.count();
		}
		if (meter instanceof FunctionCounter counter) {
			return (long) counter.count();
		}
		if (meter instanceof Timer timer) {
			return timer.count();
		}
		if (meter instanceof FunctionTimer timer) {
			return (long) timer.count();
		}
		return 0;
	}

}
