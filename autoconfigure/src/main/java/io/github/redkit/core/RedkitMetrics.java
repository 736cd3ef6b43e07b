package io.github.redkit.core;

import java.util.function.ToDoubleFunction;

/**
 * Where every capability records what it did: one seam for all of Redkit's meters, so
 * that a capability never depends on Micrometer itself. The Micrometer implementation is
 * {@code MicrometerRedkitMetrics}; an application replaces it with a bean of this type.
 * Tags are given as name/value pairs and must stay low-cardinality: never a key, an id or
 * a user value.
 */
public interface RedkitMetrics {

	/** Records nothing: for applications without Micrometer, and for tests. */
	RedkitMetrics NONE = new RedkitMetrics() {

		@Override
		public void increment(RedkitMeter meter, String... tags) {
		}

		@Override
		public void record(RedkitMeter meter, long nanos, String... tags) {
		}

		@Override
		public <T> void gauge(RedkitMeter meter, T source, ToDoubleFunction<T> value, String... tags) {
		}

	};

	/**
	 * Counts one event on a counter.
	 * @param meter the counter
	 * @param tags tag names and values, alternating
	 */
	void increment(RedkitMeter meter, String... tags);

	/**
	 * Counts several events at once on a counter. The default counts them one by one.
	 * @param meter the counter
	 * @param amount how many events, at least 0
	 * @param tags tag names and values, alternating
	 */
	default void increment(RedkitMeter meter, long amount, String... tags) {
		for (long i = 0; i < amount; i++) {
			increment(meter, tags);
		}
	}

	/**
	 * Records one timed event on a timer.
	 * @param meter the timer
	 * @param nanos how long the event took
	 * @param tags tag names and values, alternating
	 */
	void record(RedkitMeter meter, long nanos, String... tags);

	/**
	 * Registers a gauge that samples a value when the registry is read.
	 * @param <T> the type of the source
	 * @param meter the gauge
	 * @param source what the value is read from (held weakly by some registries: keep a
	 * reference)
	 * @param value reads the value
	 * @param tags tag names and values, alternating
	 */
	<T> void gauge(RedkitMeter meter, T source, ToDoubleFunction<T> value, String... tags);

}
