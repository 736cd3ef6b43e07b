package io.github.redkit.core;

import org.springframework.util.Assert;

/**
 * A meter that Redkit records: its name, kind and description. The tags come with each
 * recording (see {@link RedkitMetrics}), so one constant serves every limit, lock or
 * queue.
 *
 * @param name the dot-separated meter name, under {@code redkit.}
 * @param kind what kind of meter it is
 * @param description the description shown by the registry
 */
public record RedkitMeter(String name, Kind kind, String description) {

	public RedkitMeter {
		Assert.isTrue(name.startsWith("redkit."), () -> "Meter name '" + name + "' must start with 'redkit.'");
	}

	/**
	 * A counter.
	 * @param name the name
	 * @param description the description
	 * @return the meter
	 */
	public static RedkitMeter counter(String name, String description) {
		return new RedkitMeter(name, Kind.COUNTER, description);
	}

	/**
	 * A timer.
	 * @param name the name
	 * @param description the description
	 * @return the meter
	 */
	public static RedkitMeter timer(String name, String description) {
		return new RedkitMeter(name, Kind.TIMER, description);
	}

	/**
	 * A gauge.
	 * @param name the name
	 * @param description the description
	 * @return the meter
	 */
	public static RedkitMeter gauge(String name, String description) {
		return new RedkitMeter(name, Kind.GAUGE, description);
	}

	/**
	 * The kinds of meter Redkit records.
	 */
	public enum Kind {

		/** Counts events. */
		COUNTER,

		/** Counts and times events. */
		TIMER,

		/** Samples a value when the registry is read. */
		GAUGE

	}

}
