package io.github.redkit.queue;

import org.jspecify.annotations.Nullable;

/**
 * A stream another application writes (plain {@code XADD} entries, any fields), read by a
 * queue of the stream store through a consumer group: Redkit acknowledges, retries and
 * dead-letters its entries as it does a stream queue's messages, but never writes to it
 * nor deletes its entries.
 *
 * @param key the stream's key, used as it is (Redkit's own keys of the queue take its
 * hash tag, so that they share its cluster slot)
 * @param group the consumer group the queue reads with
 * @param startFrom where a group that does not exist yet starts: {@code 0} (every entry),
 * {@code $} (entries added from now on) or an entry id; an existing group keeps its place
 * @param createGroup whether to create a missing group (and the stream, if missing) at
 * start-up; else a missing stream or group fails start-up
 * @param payloadField the field whose value is the payload (JSON, or the text itself for
 * a {@code String} payload); {@code null} = the payload is every field, as an object of
 * strings
 */
public record ExistingStream(String key, String group, String startFrom, boolean createGroup,
		@Nullable String payloadField) {

	/**
	 * Checks the names.
	 */
	public ExistingStream {
		if (key == null || key.isBlank()) {
			throw new IllegalArgumentException("key must not be blank");
		}
		if (group == null || group.isBlank()) {
			throw new IllegalArgumentException("group must not be blank");
		}
		if (startFrom == null || !(startFrom.equals("0") || startFrom.equals("$") || isEntryId(startFrom))) {
			throw new IllegalArgumentException("startFrom must be 0, $ or an entry id <ms>-<seq>, not " + startFrom);
		}
		if (payloadField != null && payloadField.isEmpty()) {
			throw new IllegalArgumentException("payloadField must not be empty (null = every field)");
		}
	}

	private static boolean isEntryId(String id) {
		return id.matches("[0-9]{1,19}(-[0-9]{1,19})?");
	}

}
