package io.github.redkit.ratelimit.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitReservation;
import io.github.redkit.ratelimit.RateLimiter;
import org.jspecify.annotations.Nullable;

/**
 * The limit a {@code @RateLimited} method is decided on, named or inline, built once with
 * its operation: it asks the {@link RateLimiter} the question that fits, so that a call
 * site need not tell the two apart. Redkit's own limiter is handed the limit's registry
 * entry, looked up at the first call and held: a named limit defined again is seen
 * through it, and later calls need no look-up.
 */
final class LimitReference {

	private final String name;

	private final String id;

	private final @Nullable RateLimitPolicy inlinePolicy;

	private volatile @Nullable Resolved resolved;

	/**
	 * Creates a reference.
	 * @param name the limit's name (for an inline limit, the short name metrics, headers
	 * and exceptions show)
	 * @param id what the counters of an inline limit are kept under; the name for a named
	 * limit
	 * @param inlinePolicy the inline policy, or {@code null} for a named limit
	 */
	LimitReference(String name, String id, @Nullable RateLimitPolicy inlinePolicy) {
		this.name = name;
		this.id = id;
		this.inlinePolicy = inlinePolicy;
	}

	/**
	 * A configured (or defined) limit.
	 * @param name its name
	 * @return the reference
	 */
	static LimitReference named(String name) {
		return new LimitReference(name, name, null);
	}

	String name() {
		return this.name;
	}

	String id() {
		return this.id;
	}

	@Nullable RateLimitPolicy inlinePolicy() {
		return this.inlinePolicy;
	}

	RateLimitDecision tryAcquire(RateLimiter limiter, List<String> keys, int cost) {
		RedisRateLimiter redis = own(limiter);
		if (redis != null) {
			return redis.tryAcquire(entry(redis), keys, cost);
		}
		RateLimitPolicy inline = this.inlinePolicy;
		return (inline != null) ? limiter.tryAcquire(this.name, this.id, inline, keys, cost)
				: limiter.tryAcquire(this.name, keys, cost);
	}

	CompletableFuture<RateLimitDecision> tryAcquireAsync(RateLimiter limiter, List<String> keys, int cost) {
		RedisRateLimiter redis = own(limiter);
		if (redis != null) {
			return redis.tryAcquireAsync(entry(redis), keys, cost);
		}
		RateLimitPolicy inline = this.inlinePolicy;
		return (inline != null) ? limiter.tryAcquireAsync(this.name, this.id, inline, keys, cost)
				: limiter.tryAcquireAsync(this.name, keys, cost);
	}

	RateLimitReservation reserve(RateLimiter limiter, List<String> keys, int estimate) {
		RedisRateLimiter redis = own(limiter);
		if (redis != null) {
			return redis.reserve(entry(redis), keys, estimate);
		}
		RateLimitPolicy inline = this.inlinePolicy;
		return (inline != null) ? limiter.reserve(this.name, this.id, inline, keys, estimate)
				: limiter.reserve(this.name, keys, estimate);
	}

	CompletableFuture<RateLimitReservation> reserveAsync(RateLimiter limiter, List<String> keys, int estimate) {
		RedisRateLimiter redis = own(limiter);
		if (redis != null) {
			return redis.reserveAsync(entry(redis), keys, estimate);
		}
		RateLimitPolicy inline = this.inlinePolicy;
		return (inline != null) ? limiter.reserveAsync(this.name, this.id, inline, keys, estimate)
				: limiter.reserveAsync(this.name, keys, estimate);
	}

	/**
	 * Redkit's own limiter, asked through its registry entry; any other, a subclass too
	 * (the proxy Spring makes for an application's aspect on the limiter), is asked
	 * through its public face, so that its advice sees the call.
	 */
	private static @Nullable RedisRateLimiter own(RateLimiter limiter) {
		return (limiter.getClass() == RedisRateLimiter.class) ? (RedisRateLimiter) limiter : null;
	}

	/**
	 * The limit's entry in the limiter's registry, looked up once: an unknown name fails
	 * every call until it is defined.
	 */
	private RateLimitRegistry.Entry entry(RedisRateLimiter limiter) {
		Resolved resolved = this.resolved;
		if (resolved == null || resolved.limiter() != limiter) {
			RateLimitPolicy inline = this.inlinePolicy;
			RateLimitRegistry.Entry entry = (inline != null) ? limiter.registry().inline(this.name, this.id, inline)
					: limiter.registry().named(this.name);
			resolved = new Resolved(limiter, entry);
			this.resolved = resolved;
		}
		return resolved.entry();
	}

	private record Resolved(RedisRateLimiter limiter, RateLimitRegistry.Entry entry) {

	}

}
