package io.github.redkit.ratelimit;

import java.util.List;

import reactor.core.publisher.Mono;

/**
 * The {@link RateLimiter}'s reactive face: the same decisions, asked for on subscription
 * and answered without blocking a thread. A refused call emits a
 * {@link RateLimitDecision} that is not allowed; a call that cannot be decided applies
 * the failure mode ({@link RateLimiterUnavailableException} when it is {@code deny}).
 */
public interface ReactiveRateLimiter {

	/**
	 * Takes one permit of a named limit for one identifier.
	 * @param limitName the limit, configured under {@code redkit.rate-limit.limits}
	 * @param key the identifier
	 * @return the decision
	 */
	default Mono<RateLimitDecision> tryAcquire(String limitName, String key) {
		return tryAcquire(limitName, List.of(key), 1);
	}

	/**
	 * Takes {@code cost} permits of a named limit for every identifier, or none at all.
	 * @param limitName the limit, configured under {@code redkit.rate-limit.limits}
	 * @param keys the identifiers; all must be under every window
	 * @param cost permits to take, at least 1
	 * @return the decision
	 */
	Mono<RateLimitDecision> tryAcquire(String limitName, List<String> keys, int cost);

	/**
	 * Takes {@code cost} permits of an explicit policy, counted under {@code limitName}.
	 * @param limitName the name the counters and metrics are kept under
	 * @param policy the policy to apply
	 * @param keys the identifiers; all must be under every window
	 * @param cost permits to take, at least 1
	 * @return the decision
	 */
	default Mono<RateLimitDecision> tryAcquire(String limitName, RateLimitPolicy policy, List<String> keys, int cost) {
		return tryAcquire(limitName, limitName, policy, keys, cost);
	}

	/**
	 * Takes {@code cost} permits of an explicit policy whose counters are kept under an
	 * id of their own (see
	 * {@link RateLimiter#tryAcquire(String, String, RateLimitPolicy, List, int)}).
	 * @param limitName the name metrics, headers and exceptions show
	 * @param limitId the unique, stable name the counters are kept under
	 * @param policy the policy to apply
	 * @param keys the identifiers; all must be under every window
	 * @param cost permits to take, at least 1
	 * @return the decision
	 */
	Mono<RateLimitDecision> tryAcquire(String limitName, String limitId, RateLimitPolicy policy, List<String> keys,
			int cost);

	/**
	 * Takes an estimate of a call whose real cost is known only after it, to be settled
	 * with what it really used ({@link RateLimitReservation#settleAsync(long)}). A
	 * subscriber that cancels while the estimate is being taken gets nothing, and what
	 * Redis took for it is given back.
	 * <p>
	 * The default keeps the estimate whatever a reservation is settled with; Redkit's own
	 * gives back or charges the difference.
	 * @param limitName the limit, configured under {@code redkit.rate-limit.limits}
	 * @param keys the identifiers; all must be under every window
	 * @param estimate permits to take up front, at least 1
	 * @return the reservation, allowed or not
	 */
	default Mono<RateLimitReservation> reserve(String limitName, List<String> keys, int estimate) {
		return tryAcquire(limitName, keys, estimate)
			.map((decision) -> RateLimitReservation.unsettled(decision, estimate));
	}

	/**
	 * Takes an estimate on an explicit policy counted under an id of its own (see
	 * {@link RateLimiter#reserve(String, String, RateLimitPolicy, List, int)}).
	 * @param limitName the name metrics, headers and exceptions show
	 * @param limitId the unique, stable name the counters are kept under
	 * @param policy the policy to apply
	 * @param keys the identifiers; all must be under every window
	 * @param estimate permits to take up front, at least 1
	 * @return the reservation, allowed or not
	 */
	default Mono<RateLimitReservation> reserve(String limitName, String limitId, RateLimitPolicy policy,
			List<String> keys, int estimate) {
		return tryAcquire(limitName, limitId, policy, keys, estimate)
			.map((decision) -> RateLimitReservation.unsettled(decision, estimate));
	}

}
