package io.github.redkit.core.web;

import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Computes {@linkplain QuotaHeaders#partitionKey(List) partition keys} with SHA-256
 * digests shared by every thread: looking a digest up by name costs more allocation than
 * the rest of a request's rate-limit fields together. A few digests wait in slots, taken
 * for one key and put back; a call that finds its slot taken clones a prototype (a copy
 * of its state, no look-up). Nothing is kept per thread: a virtual thread, or a
 * container's request thread made for a burst, would make a digest of its own per call,
 * and a digest kept by an external container's threads would keep the application's class
 * loader after a redeploy.
 */
final class PartitionKeyDigest {

	private static final int PARTITION_KEY_BYTES = 9;

	private static final int ASCII_BYTES = 256;

	private static final byte[] BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
		.getBytes(StandardCharsets.US_ASCII);

	// a power of two: the calling thread's id picks a slot
	private static final int SLOTS = Integer.highestOneBit(Math.max(Runtime.getRuntime().availableProcessors(), 2)) * 4;

	private static final AtomicReferenceArray<PartitionKeyDigest> READY = new AtomicReferenceArray<>(SLOTS);

	private static final MessageDigest PROTOTYPE = sha256();

	private final MessageDigest digest;

	private final byte[] hash;

	// an ASCII identifier's bytes, up to this length
	private final byte[] ascii = new byte[ASCII_BYTES];

	// the field's bytes, before they are copied into its string
	private final byte[] field = new byte[2 + PARTITION_KEY_BYTES / 3 * 4];

	private PartitionKeyDigest(MessageDigest digest) {
		this.digest = digest;
		this.hash = new byte[digest.getDigestLength()];
	}

	/**
	 * The first 9 bytes of the SHA-256 of the identifiers, each followed by a newline, as
	 * a structured-field byte sequence: 12 base64 characters (9 bytes need no padding)
	 * between colons.
	 */
	static String partitionKey(List<String> keys) {
		int slot = (int) Thread.currentThread().getId() & (SLOTS - 1);
		PartitionKeyDigest digest = READY.getAndSet(slot, null);
		if (digest == null) {
			digest = new PartitionKeyDigest(copy());
		}
		String partitionKey = digest.compute(keys);
		// a digest left half-fed by a failure is not put back
		READY.setRelease(slot, digest);
		return partitionKey;
	}

	private String compute(List<String> keys) {
		this.digest.reset();
		// by index: an iterator per call is allocated for nothing
		for (int i = 0; i < keys.size(); i++) {
			update(keys.get(i));
			this.digest.update((byte) '\n');
		}
		try {
			this.digest.digest(this.hash, 0, this.hash.length);
		}
		catch (DigestException ex) {
			throw new IllegalStateException("A SHA-256 digest fits its own length", ex);
		}
		byte[] field = this.field;
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

	/**
	 * Feeds an identifier's UTF-8 bytes: an ASCII one (its UTF-8 bytes are its chars)
	 * through this digest's own buffer, so that no byte array is made per key.
	 */
	private void update(String key) {
		int length = key.length();
		if (length > this.ascii.length) {
			this.digest.update(key.getBytes(StandardCharsets.UTF_8));
			return;
		}
		for (int i = 0; i < length; i++) {
			char c = key.charAt(i);
			if (c >= 0x80) {
				this.digest.update(key.getBytes(StandardCharsets.UTF_8));
				return;
			}
			this.ascii[i] = (byte) c;
		}
		this.digest.update(this.ascii, 0, length);
	}

	private static MessageDigest copy() {
		try {
			return (MessageDigest) PROTOTYPE.clone();
		}
		catch (CloneNotSupportedException ex) {
			// a provider whose digests cannot be cloned: looked up by name
			return sha256();
		}
	}

	private static MessageDigest sha256() {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java platform has SHA-256", ex);
		}
	}

}
