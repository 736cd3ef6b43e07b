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
 * site need not tell the two apart.
 *
 * @param name the limit's name (for an inline limit, the short name metrics, headers and
 * exceptions show)
 * @param id what the counters of an inline limit are kept under; the name for a named
 * limit
 * @param inlinePolicy the inline policy, or {@code null} for a named limit
 */
record LimitReference(String name, String id, @Nullable RateLimitPolicy inlinePolicy) {

	/**
	 * A configured (or defined) limit.
	 * @param name its name
	 * @return the reference
	 */
	static LimitReference named(String name) {
		return new LimitReference(name, name, null);
	}

	RateLimitDecision tryAcquire(RateLimiter limiter, List<String> keys, int cost) {
		RateLimitPolicy inline = this.inlinePolicy;
		return (inline != null) ? limiter.tryAcquire(this.name, this.id, inline, keys, cost)
				: limiter.tryAcquire(this.name, keys, cost);
	}

	CompletableFuture<RateLimitDecision> tryAcquireAsync(RateLimiter limiter, List<String> keys, int cost) {
		RateLimitPolicy inline = this.inlinePolicy;
		return (inline != null) ? limiter.tryAcquireAsync(this.name, this.id, inline, keys, cost)
				: limiter.tryAcquireAsync(this.name, keys, cost);
	}

	RateLimitReservation reserve(RateLimiter limiter, List<String> keys, int estimate) {
		RateLimitPolicy inline = this.inlinePolicy;
		return (inline != null) ? limiter.reserve(this.name, this.id, inline, keys, estimate)
				: limiter.reserve(this.name, keys, estimate);
	}

	CompletableFuture<RateLimitReservation> reserveAsync(RateLimiter limiter, List<String> keys, int estimate) {
		RateLimitPolicy inline = this.inlinePolicy;
		return (inline != null) ? limiter.reserveAsync(this.name, this.id, inline, keys, estimate)
				: limiter.reserveAsync(this.name, keys, estimate);
	}

}
