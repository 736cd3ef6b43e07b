package io.github.redkit.core;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

import org.springframework.util.Assert;

/**
 * Builds every key Redkit writes: {@code <prefix>:<capability>:<part>...}, with one
 * optional {@code {hash tag}} around the parts that must share a cluster slot.
 * <p>
 * Every part is escaped, so a part that comes from a request cannot add a separator, open
 * or close a hash tag, or make two different inputs share a key: bytes outside
 * {@code [A-Za-z0-9._@-]} become {@code %XX}, and an escaped part longer than
 * {@link #MAX_PART_LENGTH} is replaced by {@code #} and its SHA-256 (Base64url). Neither
 * {@code %} nor {@code #} survives escaping, so the mapping stays one to one. A lone
 * surrogate, which UTF-8 cannot encode, is escaped as the three bytes of its code unit
 * (WTF-8), which no valid UTF-8 holds.
 */
public final class RedisKeyspace {

	/** Longest escaped part kept as it is; longer ones are hashed. */
	public static final int MAX_PART_LENGTH = 128;

	private final String prefix;

	/**
	 * Creates a keyspace.
	 * @param prefix the prefix of every key (see {@link #validatePrefix(String)})
	 */
	public RedisKeyspace(String prefix) {
		validatePrefix(prefix);
		this.prefix = prefix;
	}

	/**
	 * Checks that a key prefix can neither act as a hash tag nor break a key.
	 * @param prefix the prefix
	 * @throws IllegalArgumentException when it is empty or contains braces, whitespace or
	 * control characters
	 */
	public static void validatePrefix(String prefix) {
		Assert.hasText(prefix, "Key prefix must not be empty");
		for (int i = 0; i < prefix.length(); i++) {
			char c = prefix.charAt(i);
			if (c == '{' || c == '}' || Character.isWhitespace(c) || Character.isISOControl(c)) {
				throw new IllegalArgumentException(
						"Key prefix '" + prefix + "' must not contain '{', '}', whitespace or control characters");
			}
		}
	}

	/**
	 * The prefix of every key.
	 * @return the prefix
	 */
	public String prefix() {
		return this.prefix;
	}

	/**
	 * Starts a key of one capability.
	 * @param capability the capability, e.g. {@code ratelimit}
	 * @return a key to add parts to
	 */
	public Key key(String capability) {
		return new Key(this.prefix + ":" + escape(capability), false);
	}

	/**
	 * Escapes one key part.
	 * @param part the raw part, from configuration or from a request
	 * @return a part without {@code :}, braces, whitespace or non-ASCII characters
	 * @throws IllegalArgumentException when the part is null or empty
	 */
	public static String escape(String part) {
		Assert.isTrue(part != null && !part.isEmpty(), "Key part must not be null or empty");
		if (isSafe(part)) {
			return (part.length() <= MAX_PART_LENGTH) ? part : hash(part);
		}
		byte[] bytes = bytes(part);
		StringBuilder escaped = new StringBuilder(bytes.length + 16);
		for (byte b : bytes) {
			int c = b & 0xFF;
			if (isSafe(c)) {
				escaped.append((char) c);
			}
			else {
				escaped.append('%')
					.append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
					.append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
			}
			if (escaped.length() > MAX_PART_LENGTH) {
				return hash(part);
			}
		}
		return escaped.toString();
	}

	// UTF-8, except that a lone surrogate, which UTF-8 cannot encode (Java's encoder
	// writes '?'), takes the three bytes of its code unit (as WTF-8 does): bytes no
	// valid UTF-8 holds, so it shares a key neither with '?' nor with another surrogate
	private static byte[] bytes(String part) {
		int lone = firstLoneSurrogate(part, 0);
		if (lone < 0) {
			return part.getBytes(StandardCharsets.UTF_8);
		}
		ByteArrayOutputStream bytes = new ByteArrayOutputStream(part.length() * 3);
		int start = 0;
		while (lone >= 0) {
			bytes.writeBytes(part.substring(start, lone).getBytes(StandardCharsets.UTF_8));
			char surrogate = part.charAt(lone);
			bytes.write(0xE0 | (surrogate >> 12));
			bytes.write(0x80 | ((surrogate >> 6) & 0x3F));
			bytes.write(0x80 | (surrogate & 0x3F));
			start = lone + 1;
			lone = firstLoneSurrogate(part, start);
		}
		bytes.writeBytes(part.substring(start).getBytes(StandardCharsets.UTF_8));
		return bytes.toByteArray();
	}

	private static int firstLoneSurrogate(String part, int from) {
		for (int i = from; i < part.length(); i++) {
			char c = part.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < part.length() && Character.isLowSurrogate(part.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				return i;
			}
		}
		return -1;
	}

	private static boolean isSafe(String part) {
		for (int i = 0; i < part.length(); i++) {
			if (!isSafe(part.charAt(i))) {
				return false;
			}
		}
		return true;
	}

	private static boolean isSafe(int c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
				|| c == '-' || c == '@';
	}

	private static String hash(String part) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes(part));
			return "#" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required by every JVM", ex);
		}
	}

	/**
	 * An immutable key under construction.
	 */
	public static final class Key {

		private final String value;

		private final boolean tagged;

		private Key(String value, boolean tagged) {
			this.value = value;
			this.tagged = tagged;
		}

		/**
		 * Appends escaped parts.
		 * @param parts the raw parts
		 * @return the longer key
		 */
		public Key part(String... parts) {
			StringBuilder key = new StringBuilder(this.value);
			for (String part : parts) {
				key.append(':').append(escape(part));
			}
			return new Key(key.toString(), this.tagged);
		}

		/**
		 * Appends escaped parts inside a hash tag: every key with the same tagged parts
		 * lives in the same cluster slot. A key has at most one tag.
		 * @param parts the raw parts
		 * @return the longer key
		 */
		public Key tag(String... parts) {
			Assert.state(!this.tagged, "A key has at most one hash tag");
			Assert.notEmpty(parts, "A hash tag needs at least one part");
			StringBuilder key = new StringBuilder(this.value).append(":{");
			for (int i = 0; i < parts.length; i++) {
				key.append((i > 0) ? ":" : "").append(escape(parts[i]));
			}
			return new Key(key.append('}').toString(), true);
		}

		/**
		 * The finished key.
		 * @return the key
		 */
		public String build() {
			return this.value;
		}

		@Override
		public String toString() {
			return this.value;
		}

	}

}
