package io.github.redkit.core.web;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What every limit's HTTP answer shares of the IETF draft "RateLimit header fields for
 * HTTP" (draft-ietf-httpapi-ratelimit-headers-11): the names of its {@code RateLimit} and
 * {@code RateLimit-Policy} fields, its {@code quota-exceeded} problem type, and the RFC
 * 9651 structured-field encoding of their items: quoted names, partition keys and whole
 * seconds. Each limit writes its own items with them.
 */
public final class QuotaHeaders {

	/** The policy field. */
	public static final String POLICY = "RateLimit-Policy";

	/** The state field. */
	public static final String STATE = "RateLimit";

	/** The draft's problem type for a request refused because a quota is exhausted. */
	public static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

	/** The problem detail member that lists the names of the exhausted policies. */
	public static final String VIOLATED_POLICIES = "violated-policies";

	/**
	 * The largest integer a structured field holds: RFC 9651 integers have at most 15
	 * digits.
	 */
	public static final long MAX_INTEGER = 999_999_999_999_999L;

	private QuotaHeaders() {
	}

	/**
	 * A count or a number of seconds as a structured-field integer: a value beyond 15
	 * digits, which a parser refuses, reads as the largest one (for a client, as good as
	 * unlimited).
	 * @param value the value
	 * @return the value, at most {@link #MAX_INTEGER}
	 */
	public static long integer(long value) {
		return Math.min(value, MAX_INTEGER);
	}

	/**
	 * The partition key of a call's identifiers as a structured-field byte sequence: the
	 * first 9 bytes of the SHA-256 of the identifiers, each followed by a newline, so
	 * that a client can tell its partitions apart without the identifiers being shown.
	 * @param keys the identifiers; empty for a limit shared by every caller
	 * @return the byte sequence, e.g. {@code :3q2+7wAAAAAA:}, or {@code null} without
	 * keys
	 */
	public static @Nullable String partitionKey(List<String> keys) {
		if (keys.isEmpty()) {
			return null;
		}
		return PartitionKeyDigest.partitionKey(keys);
	}

	/**
	 * The {@code pk} parameter of an item.
	 * @param partitionKey the {@linkplain #partitionKey(List) partition key}, or
	 * {@code null}
	 * @return {@code ;pk=} and the key, or nothing without one
	 */
	public static String pk(@Nullable String partitionKey) {
		return (partitionKey != null) ? ";pk=" + partitionKey : "";
	}

	/**
	 * Whole seconds, rounded up, as {@code Retry-After} and the draft's parameters want.
	 * @param duration the duration
	 * @return the seconds, at least 0
	 */
	public static long seconds(Duration duration) {
		long millis = Math.max(duration.toMillis(), 0);
		return (millis + 999) / 1000;
	}

	/**
	 * A structured-field string (RFC 9651): printable ASCII in double quotes, with
	 * {@code "} and {@code \} escaped; any other character becomes {@code _}.
	 * @param name the text
	 * @return the quoted string
	 */
	public static String quoted(String name) {
		StringBuilder quoted = new StringBuilder("\"");
		for (char c : name.toCharArray()) {
			if (c < 0x20 || c > 0x7e) {
				quoted.append('_');
			}
			else {
				quoted.append((c == '"' || c == '\\') ? "\\" + c : String.valueOf(c));
			}
		}
		return quoted.append('"').toString();
	}

}
