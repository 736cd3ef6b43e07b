package io.github.redkit.concurrency.internal;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.concurrency.ConcurrencyPermit;
import io.github.redkit.concurrency.ConcurrencyPolicy;
import org.jspecify.annotations.Nullable;

/**
 * The limit a {@code @ConcurrencyLimited} method takes its permits from, named or inline,
 * built once with its operation: it asks the {@link ConcurrencyLimiter} the question that
 * fits, so that a call site need not tell the two apart.
 *
 * @param name the limit's name (for an inline limit, the short name metrics and
 * exceptions show)
 * @param id what the permits of an inline limit are kept under; the name for a named
 * limit
 * @param inlinePolicy the inline policy, or {@code null} for a named limit
 */
record LimitReference(String name, String id, @Nullable ConcurrencyPolicy inlinePolicy) {

	/**
	 * A configured limit.
	 * @param name its name
	 * @return the reference
	 */
	static LimitReference named(String name) {
		return new LimitReference(name, name, null);
	}

	Optional<ConcurrencyPermit> tryAcquire(ConcurrencyLimiter limiter, String key) {
		ConcurrencyPolicy inline = this.inlinePolicy;
		return (inline != null) ? limiter.tryAcquire(this.name, this.id, inline, key)
				: limiter.tryAcquire(this.name, key);
	}

	CompletableFuture<Optional<ConcurrencyPermit>> tryAcquireAsync(ConcurrencyLimiter limiter, String key) {
		ConcurrencyPolicy inline = this.inlinePolicy;
		return (inline != null) ? limiter.tryAcquireAsync(this.name, this.id, inline, key)
				: limiter.tryAcquireAsync(this.name, key);
	}

	/**
	 * The most permits the limit lends at once, for a refusal's message.
	 * @param limiter asked for a named limit's policy
	 * @return the limit, {@code 0} when a named limit is not known
	 */
	int limit(ConcurrencyLimiter limiter) {
		ConcurrencyPolicy inline = this.inlinePolicy;
		return (inline != null) ? inline.limit() : limiter.policy(this.name).map(ConcurrencyPolicy::limit).orElse(0);
	}

}
