package io.github.redkit.pubsub;

import java.util.Map;

/**
 * The desired values of a control group at one version, as read atomically from Redis.
 *
 * @param group the group, e.g. {@code workers}
 * @param version the version, incremented by every change; 0 when nothing was ever set
 * @param values the values by field, e.g. {@code throttle -> 10}
 */
public record ControlSnapshot(String group, long version, Map<String, String> values) {

	/**
	 * Creates a snapshot.
	 * @param group the group
	 * @param version the version
	 * @param values the values (copied)
	 */
	public ControlSnapshot {
		values = Map.copyOf(values);
	}

	/**
	 * A value.
	 * @param field the field
	 * @param fallback returned when the field is not set
	 * @return the value
	 */
	public String get(String field, String fallback) {
		return this.values.getOrDefault(field, fallback);
	}

	/**
	 * A number.
	 * @param field the field
	 * @param fallback returned when the field is not set
	 * @return the value
	 * @throws NumberFormatException when the value is not a number
	 */
	public long getLong(String field, long fallback) {
		String value = this.values.get(field);
		return (value != null) ? Long.parseLong(value.trim()) : fallback;
	}

	/**
	 * A flag.
	 * @param field the field
	 * @param fallback returned when the field is not set
	 * @return {@code true} for {@code "true"} (any case)
	 */
	public boolean getBoolean(String field, boolean fallback) {
		String value = this.values.get(field);
		return (value != null) ? Boolean.parseBoolean(value.trim()) : fallback;
	}

}
