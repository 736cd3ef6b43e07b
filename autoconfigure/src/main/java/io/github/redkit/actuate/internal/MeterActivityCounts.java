package io.github.redkit.actuate.internal;

import java.util.List;
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
 * The activity's counts from the application's {@link MeterRegistry}; loaded only when
 * Micrometer is on the class path.
 */
public final class MeterActivityCounts implements ActivityEndpointSection.Counts {

	private final Supplier<@Nullable MeterRegistry> registry;

	/**
	 * Creates the counts.
	 * @param registry supplies the application's registry, or {@code null} without one
	 */
	public MeterActivityCounts(Supplier<@Nullable MeterRegistry> registry) {
		this.registry = registry;
	}

	@Override
	public Map<String, Map<String, Long>> count(String nameTag, List<String> meterNames) {
		MeterRegistry meters = this.registry.get();
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
