package io.github.redkit.pubsub;

import java.util.Map;

/**
 * Durable control state: a controller sets desired values of a group (e.g.
 * {@code workers.throttle = 10}); they are stored in Redis with a version and the change
 * is announced on the control channel, in one atomic script. Subscribers
 * ({@link ControlStateListener} beans) re-read the state on every announcement, at
 * start-up and after every reconnect, and acknowledge the version they applied.
 */
public interface ControlState {

	/**
	 * Sets values of a group; an empty value removes its field.
	 * @param group the group
	 * @param values the values by field
	 * @return the new version
	 */
	long set(String group, Map<String, String> values);

	/**
	 * Sets one value of a group.
	 * @param group the group
	 * @param field the field
	 * @param value the value; empty removes the field
	 * @return the new version
	 */
	default long set(String group, String field, String value) {
		return set(group, Map.of(field, value));
	}

	/**
	 * Reads the current values and version of a group atomically.
	 * @param group the group
	 * @return the snapshot (version 0 and no values when never set)
	 */
	ControlSnapshot read(String group);

	/**
	 * Records that a subscriber applied a version; the record expires unless renewed.
	 * @param group the group
	 * @param subscriberId the subscriber, e.g. {@code host:pid}
	 * @param version the version applied
	 */
	void acknowledge(String group, String subscriberId, long version);

	/**
	 * The subscribers whose acknowledgement has not expired, with the version each
	 * applied; compare with {@link #read(String)} to see who is behind.
	 * @param group the group
	 * @return versions by subscriber id
	 */
	Map<String, Long> acknowledgements(String group);

}
