package io.github.redkit.cache.internal;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.cache.RedisCacheWriter.TtlFunction;
import org.springframework.util.Assert;

/**
 * A time to live chosen at random in {@code [ttl × (1 − jitter), ttl]} for every entry
 * written, so that entries written together do not expire together. The configured TTL
 * stays the upper bound of how stale an entry can be.
 */
public final class JitteredTtl implements TtlFunction {

	private final Duration ttl;

	private final double jitter;

	/**
	 * Creates a TTL function.
	 * @param ttl the longest time to live; zero keeps entries forever (no jitter then)
	 * @param jitter the fraction of {@code ttl} that may be cut, in {@code [0, 1)}
	 */
	public JitteredTtl(Duration ttl, double jitter) {
		Assert.isTrue(!ttl.isNegative(), "ttl must not be negative");
		Assert.isTrue(jitter >= 0 && jitter < 1, "jitter must be in [0, 1)");
		this.ttl = ttl;
		this.jitter = jitter;
	}

	/**
	 * The longest time to live.
	 * @return the configured TTL
	 */
	public Duration ttl() {
		return this.ttl;
	}

	@Override
	public Duration getTimeToLive(Object key, @Nullable Object value) {
		if (this.jitter == 0 || this.ttl.isZero()) {
			return this.ttl;
		}
		long millis = this.ttl.toMillis();
		long cut = (long) (millis * this.jitter * ThreadLocalRandom.current().nextDouble());
		return Duration.ofMillis(Math.max(1, millis - cut));
	}

	/**
	 * Parses a jitter written as a percentage ({@code "10%"}) or a fraction
	 * ({@code "0.1"}).
	 * @param text the text
	 * @return the fraction
	 * @throws IllegalArgumentException when it is not a number in {@code [0, 1)}
	 */
	public static double parseJitter(String text) {
		Assert.hasText(text, "jitter must not be empty");
		String value = text.trim();
		double fraction = value.endsWith("%") ? Double.parseDouble(value.substring(0, value.length() - 1)) / 100
				: Double.parseDouble(value);
		if (!(fraction >= 0 && fraction < 1)) {
			throw new IllegalArgumentException("'" + text + "' is not in [0%, 100%)");
		}
		return fraction;
	}

}
