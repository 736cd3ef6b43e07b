package io.github.redkit.queue;

import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What a queue stores per message: {@code <id>|<deliveries>|<json>}. The id starts with
 * the send time in base 36, so the age of the oldest message can be read from the head of
 * the list; the delivery count is bumped by the claim script without parsing the JSON.
 *
 * @param id the message id
 * @param deliveries how many times it was delivered
 * @param json the payload
 * @param raw the stored element, exactly as in Redis (ack removes it by value)
 */
record Envelope(String id, int deliveries, String json, String raw) {

	static Envelope create(String json) {
		String id = Long.toString(System.currentTimeMillis(), 36) + "."
				+ Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
		return new Envelope(id, 0, json, id + "|0|" + json);
	}

	static Envelope parse(String raw) {
		int first = raw.indexOf('|');
		int second = raw.indexOf('|', first + 1);
		if (first <= 0 || second < 0) {
			throw new IllegalArgumentException("Not a Redkit queue element: " + abbreviate(raw));
		}
		return new Envelope(raw.substring(0, first), Integer.parseInt(raw.substring(first + 1, second)),
				raw.substring(second + 1), raw);
	}

	Instant sentAt() {
		return sentAt(this.id);
	}

	static Instant sentAt(String id) {
		int dot = id.indexOf('.');
		try {
			return Instant.ofEpochMilli(Long.parseLong((dot > 0) ? id.substring(0, dot) : id, 36));
		}
		catch (NumberFormatException ex) {
			return Instant.EPOCH;
		}
	}

	private static String abbreviate(String raw) {
		return (raw.length() > 64) ? raw.substring(0, 64) + "..." : raw;
	}

}
