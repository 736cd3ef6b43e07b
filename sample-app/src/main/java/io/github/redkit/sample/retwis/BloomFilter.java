package io.github.redkit.sample.retwis;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Seed 001's Bloom filter by hand, with {@code SETBIT}/{@code GETBIT} on one string (no
 * RedisBloom module): a set of names that answers "surely absent" or "maybe present",
 * never "absent" for a name that was added. Sized for an expected count {@code n} and a
 * false-positive rate {@code p}: {@code m = -n ln p / (ln 2)^2} bits and
 * {@code k = m/n ln 2} hash functions; the k bits of a name are set or read by one
 * script, so one round trip. Bit {@code m}, past the filter's own bits, marks a filter
 * that holds every name ({@link #build}); without it, as when the key expired, lookups
 * answer {@link Lookup#NOT_BUILT}.
 */
public class BloomFilter {

	private static final int BATCH = 1000;

	private static final Duration BUILD_TTL = Duration.ofMinutes(10);

	// ARGV[1] = TTL in ms, then the bit offsets
	private static final RedisScript<Long> ADD = RedisScript.of("""
			for i = 2, #ARGV do
			  redis.call('SETBIT', KEYS[1], ARGV[i], 1)
			end
			redis.call('PEXPIRE', KEYS[1], ARGV[1])
			return 1
			""", Long.class);

	// ARGV[1] = the offset of the "built" bit, then the bit offsets; -1 = not built
	private static final RedisScript<Long> LOOKUP = RedisScript.of("""
			if redis.call('GETBIT', KEYS[1], ARGV[1]) == 0 then
			  return -1
			end
			for i = 2, #ARGV do
			  if redis.call('GETBIT', KEYS[1], ARGV[i]) == 0 then
			    return 0
			  end
			end
			return 1
			""", Long.class);

	// OR keeps the names added to the filter while the build ran
	private static final RedisScript<Long> PUBLISH = RedisScript.of("""
			redis.call('BITOP', 'OR', KEYS[1], KEYS[1], KEYS[2])
			redis.call('SETBIT', KEYS[1], ARGV[1], 1)
			redis.call('PEXPIRE', KEYS[1], ARGV[2])
			redis.call('DEL', KEYS[2])
			return 1
			""", Long.class);

	private final StringRedisTemplate redis;

	private final String key;

	private final long bits;

	private final int hashes;

	private final Duration ttl;

	/**
	 * Sizes a filter.
	 * @param redis the template
	 * @param name the key name; the key also names the size, so a filter sized otherwise
	 * starts afresh (and the old one expires)
	 * @param expected how many names it should hold ({@code n})
	 * @param falsePositiveRate the rate of "maybe present" for absent names once it holds
	 * {@code n} ({@code p})
	 * @param ttl how long the key lives after the last write
	 */
	public BloomFilter(StringRedisTemplate redis, String name, long expected, double falsePositiveRate, Duration ttl) {
		if (expected < 1 || !(falsePositiveRate > 0 && falsePositiveRate < 1)) {
			throw new IllegalArgumentException("Need expected >= 1 and 0 < falsePositiveRate < 1");
		}
		double ln2 = Math.log(2);
		this.bits = (long) Math.ceil(-expected * Math.log(falsePositiveRate) / (ln2 * ln2));
		this.hashes = (int) Math.max(1, Math.round((double) this.bits / expected * ln2));
		if (this.bits >= (1L << 32) - 1) {
			throw new IllegalArgumentException("A Redis string holds at most 2^32 bits");
		}
		// one hash tag for the filter and its builds, so the scripts work on a cluster
		// too
		this.key = "{" + name + "}:" + this.bits + ":" + this.hashes;
		this.redis = redis;
		this.ttl = ttl;
	}

	public String key() {
		return this.key;
	}

	public long bits() {
		return this.bits;
	}

	public int hashes() {
		return this.hashes;
	}

	/**
	 * Adds a name.
	 * @param name the name
	 */
	public void add(String name) {
		add(this.key, List.of(name), this.ttl);
	}

	/**
	 * Whether a name may have been added.
	 * @param name the name
	 * @return {@link Lookup#ABSENT} only for a name never added
	 */
	public Lookup lookup(String name) {
		List<String> args = new ArrayList<>(this.hashes + 1);
		args.add(Long.toString(this.bits));
		for (long offset : offsets(name)) {
			args.add(Long.toString(offset));
		}
		Long answer = this.redis.execute(LOOKUP, List.of(this.key), args.toArray());
		if (answer == null || answer < 0) {
			return Lookup.NOT_BUILT;
		}
		return (answer == 0) ? Lookup.ABSENT : Lookup.MAYBE_PRESENT;
	}

	/**
	 * Fills the filter with every name and marks it built. The names go to a separate key
	 * first, one script per batch, then are merged in at once: a lookup meanwhile answers
	 * {@link Lookup#NOT_BUILT}, not a false "absent" from a half-built filter.
	 * @param names every name of the set
	 */
	public void build(Stream<String> names) {
		String building = this.key + ":building:" + UUID.randomUUID();
		List<String> batch = new ArrayList<>(BATCH);
		names.forEach((name) -> {
			batch.add(name);
			if (batch.size() == BATCH) {
				add(building, batch, BUILD_TTL);
				batch.clear();
			}
		});
		if (!batch.isEmpty()) {
			add(building, batch, BUILD_TTL);
		}
		this.redis.execute(PUBLISH, List.of(this.key, building), Long.toString(this.bits),
				Long.toString(this.ttl.toMillis()));
	}

	private void add(String key, Collection<String> names, Duration ttl) {
		List<String> args = new ArrayList<>(names.size() * this.hashes + 1);
		args.add(Long.toString(ttl.toMillis()));
		for (String name : names) {
			for (long offset : offsets(name)) {
				args.add(Long.toString(offset));
			}
		}
		this.redis.execute(ADD, List.of(key), args.toArray());
	}

	// k indexes from two 64-bit hashes, h1 + i * h2 (Kirsch and Mitzenmacher): as good as
	// k independent hash functions for a Bloom filter
	long[] offsets(String name) {
		ByteBuffer digest = ByteBuffer.wrap(sha256().digest(name.getBytes(StandardCharsets.UTF_8)));
		long h1 = digest.getLong(0);
		long h2 = digest.getLong(8);
		long[] offsets = new long[this.hashes];
		for (int i = 0; i < this.hashes; i++) {
			offsets[i] = Math.floorMod(h1 + i * h2, this.bits);
		}
		return offsets;
	}

	private static MessageDigest sha256() {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * What the filter knows of a name.
	 */
	public enum Lookup {

		/** Never added. */
		ABSENT,

		/** Added, or a false positive. */
		MAYBE_PRESENT,

		/** The filter does not hold every name yet (never built, or its key expired). */
		NOT_BUILT

	}

}
