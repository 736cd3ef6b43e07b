package io.github.redkit.queue.internal;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import org.jspecify.annotations.Nullable;

/**
 * What a queue stores per message: {@code <id>[;<headers>]|<deliveries>|<json>}. The id
 * starts with the send time in base 36, so the age of the oldest message can be read from
 * the head of the list; the delivery count is bumped by the claim script without parsing
 * the JSON. The optional headers (URL-encoded {@code name=value} pairs joined by
 * {@code &}, the trace context) ride in the first field, so that the scripts, which only
 * cut at the first two {@code |}, and the collapse hash of the JSON ignore them; elements
 * written without headers read as before.
 *
 * @param id the message id
 * @param deliveries how many times it was delivered
 * @param json the payload
 * @param raw the stored element, exactly as in Redis (ack removes it by value)
 * @param headers the headers, empty when sent without
 */
record Envelope(String id, int deliveries, String json, String raw, Map<String, String> headers) {

	static Envelope create(String json) {
		return create(json, Map.of());
	}

	static Envelope create(String json, Map<String, String> headers) {
		String id = Long.toString(System.currentTimeMillis(), 36) + "."
				+ Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
		return new Envelope(id, 0, json, id + encode(headers) + "|0|" + json, Map.copyOf(headers));
	}

	static Envelope parse(String raw) {
		int first = raw.indexOf('|');
		int second = raw.indexOf('|', first + 1);
		if (first <= 0 || second < 0) {
			throw notAnElement(raw);
		}
		String head = raw.substring(0, first);
		int semicolon = head.indexOf(';');
		String id = (semicolon >= 0) ? head.substring(0, semicolon) : head;
		Map<String, String> headers = (semicolon >= 0) ? decode(head.substring(semicolon + 1)) : Map.of();
		return new Envelope(id, Integer.parseInt(raw.substring(first + 1, second)), raw.substring(second + 1), raw,
				headers);
	}

	/**
	 * Reads a stored element, or gives {@code null} when it is not a Redkit queue element
	 * (written to the queue's keys by something else).
	 * @param raw the stored element
	 * @return the envelope, or {@code null}
	 */
	static @Nullable Envelope tryParse(String raw) {
		try {
			return parse(raw);
		}
		catch (IllegalArgumentException ex) {
			// NumberFormatException and a header URLDecoder cannot decode included
			return null;
		}
	}

	/**
	 * An element that is not a Redkit queue element, under an id of its own so that it
	 * can be dead-lettered as it is.
	 * @param raw the stored element, kept exactly (settling compares it)
	 * @return the envelope, its payload the whole element
	 */
	static Envelope unreadable(String raw) {
		String id = "unreadable." + Long.toString(System.currentTimeMillis(), 36) + "."
				+ Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
		return new Envelope(id, 0, raw, raw, Map.of());
	}

	/**
	 * Why an element cannot be read.
	 * @param raw the stored element
	 * @return the error, naming the element
	 */
	static IllegalArgumentException notAnElement(String raw) {
		return new IllegalArgumentException("Not a Redkit queue element: " + abbreviate(raw));
	}

	private static String encode(Map<String, String> headers) {
		if (headers.isEmpty()) {
			return "";
		}
		StringBuilder encoded = new StringBuilder();
		headers.forEach((name, value) -> encoded.append((encoded.length() == 0) ? ';' : '&')
			.append(URLEncoder.encode(name, StandardCharsets.UTF_8))
			.append('=')
			.append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
		return encoded.toString();
	}

	private static Map<String, String> decode(String encoded) {
		Map<String, String> headers = new LinkedHashMap<>();
		for (String pair : encoded.split("&")) {
			int equals = pair.indexOf('=');
			if (equals > 0) {
				headers.put(URLDecoder.decode(pair.substring(0, equals), StandardCharsets.UTF_8),
						URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
			}
		}
		return Map.copyOf(headers);
	}

	/**
	 * The same element as delivered for the given time: a stream queue counts deliveries
	 * in its consumer group, not in the element.
	 * @param count the delivery count
	 * @return the envelope, its raw element carrying the count
	 */
	Envelope withDeliveries(int count) {
		int first = this.raw.indexOf('|');
		int second = this.raw.indexOf('|', first + 1);
		return new Envelope(this.id, count, this.json,
				this.raw.substring(0, first + 1) + count + this.raw.substring(second), this.headers);
	}

	Instant sentAt() {
		return sentAt(this.id);
	}

	/**
	 * The age of a raw element from its send time (kept across a re-queue of a dead
	 * letter); an element without one, written by something other than Redkit, has none:
	 * read as sent in 1970 it would make every age alert fire.
	 * @param raw the element, {@code ''} for none
	 * @param now the server's time, in ms
	 * @return its age, zero when it has none
	 */
	static Duration ageOf(String raw, long now) {
		Instant sent = sentAt(raw.substring(0, Math.max(0, raw.indexOf('|'))));
		return sent.equals(Instant.EPOCH) ? Duration.ZERO : Duration.ofMillis(Math.max(0, now - sent.toEpochMilli()));
	}

	static Instant sentAt(String id) {
		// Redkit's ids are <send time in base 36>.<random>, a stream entry's (another
		// application's message) <ms>-<seq>: anything else has no send time
		int dash = id.indexOf('-');
		if (dash > 0 && id.indexOf('.') < 0) {
			try {
				return Instant.ofEpochMilli(Long.parseLong(id.substring(0, dash)));
			}
			catch (NumberFormatException ex) {
				return Instant.EPOCH;
			}
		}
		int dot = id.indexOf('.');
		if (dot <= 0) {
			return Instant.EPOCH;
		}
		try {
			return Instant.ofEpochMilli(Long.parseLong(id.substring(0, dot), 36));
		}
		catch (NumberFormatException ex) {
			return Instant.EPOCH;
		}
	}

	private static String abbreviate(String raw) {
		return (raw.length() > 64) ? raw.substring(0, 64) + "..." : raw;
	}

}
