package io.github.redkit.core.web;

import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;

/**
 * Computes {@linkplain QuotaHeaders#partitionKey(List) partition keys} with a SHA-256
 * digest kept per thread: looking a digest up by name costs more allocation than the rest
 * of a request's rate-limit fields together.
 */
final class PartitionKeyDigest {

	private static final int PARTITION_KEY_BYTES = 9;

	private static final byte[] BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
		.getBytes(StandardCharsets.US_ASCII);

	private static final ThreadLocal<PartitionKeyDigest> CURRENT = ThreadLocal.withInitial(PartitionKeyDigest::new);

	private final MessageDigest digest;

	private final byte[] hash;

	private PartitionKeyDigest() {
		try {
			this.digest = MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java platform has SHA-256", ex);
		}
		this.hash = new byte[this.digest.getDigestLength()];
	}

	static PartitionKeyDigest current() {
		return CURRENT.get();
	}

	/**
	 * The first 9 bytes of the SHA-256 of the identifiers, each followed by a newline, as
	 * a structured-field byte sequence: 12 base64 characters (9 bytes need no padding)
	 * between colons.
	 */
	String partitionKey(List<String> keys) {
		// a digest left half-fed by a failure on this thread starts clean
		this.digest.reset();
		for (String key : keys) {
			this.digest.update(key.getBytes(StandardCharsets.UTF_8));
			this.digest.update((byte) '\n');
		}
		try {
			this.digest.digest(this.hash, 0, this.hash.length);
		}
		catch (DigestException ex) {
			throw new IllegalStateException("A SHA-256 digest fits its own length", ex);
		}
		byte[] field = new byte[2 + PARTITION_KEY_BYTES / 3 * 4];
		field[0] = ':';
		for (int i = 0, j = 1; i < PARTITION_KEY_BYTES; i += 3) {
			int bits = (this.hash[i] & 0xff) << 16 | (this.hash[i + 1] & 0xff) << 8 | (this.hash[i + 2] & 0xff);
			field[j++] = BASE64[bits >>> 18];
			field[j++] = BASE64[(bits >>> 12) & 0x3f];
			field[j++] = BASE64[(bits >>> 6) & 0x3f];
			field[j++] = BASE64[bits & 0x3f];
		}
		field[field.length - 1] = ':';
		return new String(field, StandardCharsets.US_ASCII);
	}

}
