package io.github.redkit.core.internal;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

import io.github.redkit.core.RedkitMeter;
import io.github.redkit.core.RedkitMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * {@link RedkitMetrics} on a Micrometer {@link MeterRegistry}. The registry is looked up
 * late ({@link LateLookup}), so that its auto-configuration may run after Redkit's;
 * without one, nothing is recorded. Each meter is built once per set of tags and then
 * reused, which keeps a recording on the hot path to a map lookup.
 */
public final class MicrometerRedkitMetrics implements RedkitMetrics, SmartInitializingSingleton {

	private final LateLookup<MeterRegistry> lookup;

	// what the lookup found once settled (null for none), read alone by a recording
	private volatile @Nullable MeterRegistry registry;

	private volatile boolean settled;

	private final Map<RedkitMeter, Map<Tags, Meter>> meters = new ConcurrentHashMap<>();

	/**
	 * Creates metrics on a registry found later.
	 * @param registry supplies the registry, or {@code null} while there is none
	 */
	public MicrometerRedkitMetrics(Supplier<@Nullable MeterRegistry> registry) {
		this.lookup = new LateLookup<>(registry);
	}

	/**
	 * Looks the registry up for the last time: without one, recordings no longer ask the
	 * bean factory.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		this.registry = this.lookup.settle();
		this.settled = true;
	}

	@Override
	public void increment(RedkitMeter meter, String... tags) {
		Meter counter = meter(meter, tags, null, null);
		if (counter != null) {
			((Counter) counter).increment();
		}
	}

	@Override
	public void increment(RedkitMeter meter, long amount, String... tags) {
		Meter counter = meter(meter, tags, null, null);
		if (counter != null) {
			((Counter) counter).increment(amount);
		}
	}

	@Override
	public void record(RedkitMeter meter, long nanos, String... tags) {
		Meter timer = meter(meter, tags, null, null);
		if (timer != null) {
			((Timer) timer).record(nanos, TimeUnit.NANOSECONDS);
		}
	}

	@Override
	public <T> void gauge(RedkitMeter meter, T source, ToDoubleFunction<T> value, String... tags) {
		meter(meter, tags, source, value);
	}

	@SuppressWarnings("unchecked")
	private @Nullable Meter meter(RedkitMeter meter, String[] tags, @Nullable Object source,
			@Nullable ToDoubleFunction<?> value) {
		MeterRegistry registry = this.settled ? this.registry : this.lookup.get();
		if (registry == null) {
			// nothing records: no key is made to look a meter up with
			return null;
		}
		Map<Tags, Meter> byTags = this.meters.computeIfAbsent(meter, (m) -> new ConcurrentHashMap<>());
		Meter existing = byTags.get(new Tags(tags));
		if (existing != null) {
			return existing;
		}
		return byTags.computeIfAbsent(new Tags(tags.clone()), (k) -> switch (meter.kind()) {
			case COUNTER ->
				Counter.builder(meter.name()).description(meter.description()).tags(tags).register(registry);
			case TIMER -> Timer.builder(meter.name()).description(meter.description()).tags(tags).register(registry);
			case GAUGE -> Gauge.builder(meter.name(), gaugeSource(source), (ToDoubleFunction<Object>) gaugeValue(value))
				.description(meter.description())
				.tags(tags)
				.register(registry);
		});
	}

	private static Object gaugeSource(@Nullable Object source) {
		if (source == null) {
			throw new IllegalArgumentException("A gauge needs a source");
		}
		return source;
	}

	private static ToDoubleFunction<?> gaugeValue(@Nullable ToDoubleFunction<?> value) {
		if (value == null) {
			throw new IllegalArgumentException("A gauge needs a value function");
		}
		return value;
	}

	/**
	 * The tags of a meter as a key: compared and hashed in place, where a list over them
	 * would make an iterator for each of a recording's look-ups.
	 */
	private static final class Tags {

		private final String[] values;

		private final int hash;

		Tags(String[] values) {
			this.values = values;
			this.hash = Arrays.hashCode(values);
		}

		@Override
		public boolean equals(@Nullable Object other) {
			return this == other || (other instanceof Tags tags && Arrays.equals(this.values, tags.values));
		}

		@Override
		public int hashCode() {
			return this.hash;
		}

	}

}
