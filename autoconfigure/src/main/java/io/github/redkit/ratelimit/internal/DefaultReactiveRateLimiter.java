package io.github.redkit.ratelimit.internal;

import java.util.List;

import io.github.redkit.core.internal.ReactiveAcquire;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitReservation;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.ReactiveRateLimiter;
import reactor.core.publisher.Mono;

/**
 * The {@link ReactiveRateLimiter} on a {@link RateLimiter}'s asynchronous decisions, so
 * that both faces share one implementation of every decision: the same prepared limits,
 * keys, scripts, failure mode and meters.
 */
public class DefaultReactiveRateLimiter implements ReactiveRateLimiter {

	private final RateLimiter rateLimiter;

	/**
	 * Creates the reactive face of a rate limiter.
	 * @param rateLimiter the rate limiter
	 */
	public DefaultReactiveRateLimiter(RateLimiter rateLimiter) {
		this.rateLimiter = rateLimiter;
	}

	@Override
	public Mono<RateLimitDecision> tryAcquire(String limitName, List<String> keys, int cost) {
		return Mono.fromFuture(() -> this.rateLimiter.tryAcquireAsync(limitName, keys, cost));
	}

	@Override
	public Mono<RateLimitDecision> tryAcquire(String limitName, String limitId, RateLimitPolicy policy,
			List<String> keys, int cost) {
		return Mono.fromFuture(() -> this.rateLimiter.tryAcquireAsync(limitName, limitId, policy, keys, cost));
	}

	@Override
	public Mono<RateLimitReservation> reserve(String limitName, List<String> keys, int estimate) {
		return ReactiveAcquire.of(() -> this.rateLimiter.reserveAsync(limitName, keys, estimate),
				RateLimitReservation::giveBackAsync);
	}

	@Override
	public Mono<RateLimitReservation> reserve(String limitName, String limitId, RateLimitPolicy policy,
			List<String> keys, int estimate) {
		return ReactiveAcquire.of(() -> this.rateLimiter.reserveAsync(limitName, limitId, policy, keys, estimate),
				RateLimitReservation::giveBackAsync);
	}

}
