package io.github.redkit.ratelimit;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Decides whether a call is under its rate limit, in one Redis round trip over every
 * window and every identifier. A call that is refused consumes nothing.
 */
public interface RateLimiter {

	/**
	 * Takes one permit of a named limit for one identifier.
	 * @param limitName the limit, configured under {@code redkit.rate-limit.limits}
	 * @param key the identifier (user id, IP, API key...)
	 * @return the decision
	 */
	default RateLimitDecision tryAcquire(String limitName, String key) {
		return tryAcquire(limitName, List.of(key), 1);
	}

	/**
	 * Takes {@code cost} permits of a named limit for every identifier, or none at all.
	 * @param limitName the limit, configured under {@code redkit.rate-limit.limits}
	 * @param keys the identifiers; all must be under every window
	 * @param cost permits to take, at least 1
	 * @return the decision
	 * @throws IllegalArgumentException when the limit is unknown or the arguments invalid
	 * @throws RateLimiterUnavailableException when Redis cannot be reached and the
	 * failure mode is {@code deny}
	 */
	RateLimitDecision tryAcquire(String limitName, List<String> keys, int cost);

	/**
	 * Takes {@code cost} permits of an explicit policy, counted under {@code limitName}.
	 * @param limitName the name the counters and metrics are kept under
	 * @param policy the policy to apply
	 * @param keys the identifiers; all must be under every window
	 * @param cost permits to take, at least 1
	 * @return the decision
	 */
	RateLimitDecision tryAcquire(String limitName, RateLimitPolicy policy, List<String> keys, int cost);

	/**
	 * Takes {@code cost} permits of an explicit policy whose counters are kept under an
	 * id of their own, while metrics, headers and exceptions show a shorter name. This is
	 * how {@link RateLimited} counts an inline limit: under the method's full signature,
	 * shown as {@code Class.method}.
	 * @param limitName the name metrics, headers and exceptions show
	 * @param limitId the unique, stable name the counters are kept under
	 * @param policy the policy to apply
	 * @param keys the identifiers; all must be under every window
	 * @param cost permits to take, at least 1
	 * @return the decision
	 */
	default RateLimitDecision tryAcquire(String limitName, String limitId, RateLimitPolicy policy, List<String> keys,
			int cost) {
		return tryAcquire(limitId, policy, keys, cost);
	}

	/**
	 * Takes {@code cost} permits of a named limit for every identifier, or none at all,
	 * without blocking the calling thread: the decision completes when Redis answers (or
	 * the timeout passes, and the failure mode applies).
	 * <p>
	 * The default decides with {@link #tryAcquire(String, List, int)} on the common pool;
	 * Redkit's own rate limiter sends the script without any thread waiting.
	 * @param limitName the limit, configured under {@code redkit.rate-limit.limits}
	 * @param keys the identifiers; all must be under every window
	 * @param cost permits to take, at least 1
	 * @return the decision, completed exceptionally with
	 * {@link RateLimiterUnavailableException} when Redis cannot be reached and the
	 * failure mode is {@code deny}
	 */
	default CompletableFuture<RateLimitDecision> tryAcquireAsync(String limitName, List<String> keys, int cost) {
		return CompletableFuture.supplyAsync(() -> tryAcquire(limitName, keys, cost));
	}

	/**
	 * Takes {@code cost} permits of an explicit policy counted under an id of its own
	 * (see {@link #tryAcquire(String, String, RateLimitPolicy, List, int)}), without
	 * blocking the calling thread.
	 * @param limitName the name metrics, headers and exceptions show
	 * @param limitId the unique, stable name the counters are kept under
	 * @param policy the policy to apply
	 * @param keys the identifiers; all must be under every window
	 * @param cost permits to take, at least 1
	 * @return the decision
	 */
	default CompletableFuture<RateLimitDecision> tryAcquireAsync(String limitName, String limitId,
			RateLimitPolicy policy, List<String> keys, int cost) {
		return CompletableFuture.supplyAsync(() -> tryAcquire(limitName, limitId, policy, keys, cost));
	}

	/**
	 * Takes an estimate of a call whose real cost is known only after it, to be settled
	 * with what it really used ({@link RateLimitReservation#settle(long)}): decided like
	 * {@link #tryAcquire(String, List, int)} with the estimate as the cost.
	 * @param limitName the limit, configured under {@code redkit.rate-limit.limits}
	 * @param keys the identifiers; all must be under every window
	 * @param estimate permits to take up front, at least 1
	 * @return the reservation, allowed or not
	 * @throws RateLimiterUnavailableException when Redis cannot be reached and the
	 * failure mode is {@code deny}
	 */
	default RateLimitReservation reserve(String limitName, List<String> keys, int estimate) {
		return RateLimitReservation.unsettled(tryAcquire(limitName, keys, estimate), estimate);
	}

	/**
	 * Takes an estimate of a call on an explicit policy counted under an id of its own
	 * (see {@link #tryAcquire(String, String, RateLimitPolicy, List, int)}), to be
	 * settled with what the call really used.
	 * @param limitName the name metrics, headers and exceptions show
	 * @param limitId the unique, stable name the counters are kept under
	 * @param policy the policy to apply
	 * @param keys the identifiers; all must be under every window
	 * @param estimate permits to take up front, at least 1
	 * @return the reservation, allowed or not
	 */
	default RateLimitReservation reserve(String limitName, String limitId, RateLimitPolicy policy, List<String> keys,
			int estimate) {
		return RateLimitReservation.unsettled(tryAcquire(limitName, limitId, policy, keys, estimate), estimate);
	}

	/**
	 * Takes an estimate without blocking the calling thread (see
	 * {@link #reserve(String, List, int)}).
	 * <p>
	 * The default reserves through {@link #tryAcquireAsync(String, List, int)}, and its
	 * reservations keep their estimate whatever they are settled with; Redkit's own rate
	 * limiter gives back or charges the difference.
	 * @param limitName the limit, configured under {@code redkit.rate-limit.limits}
	 * @param keys the identifiers; all must be under every window
	 * @param estimate permits to take up front, at least 1
	 * @return the reservation
	 */
	default CompletableFuture<RateLimitReservation> reserveAsync(String limitName, List<String> keys, int estimate) {
		return tryAcquireAsync(limitName, keys, estimate)
			.thenApply((decision) -> RateLimitReservation.unsettled(decision, estimate));
	}

	/**
	 * Takes an estimate on an explicit policy without blocking the calling thread (see
	 * {@link #reserve(String, String, RateLimitPolicy, List, int)}).
	 * @param limitName the name metrics, headers and exceptions show
	 * @param limitId the unique, stable name the counters are kept under
	 * @param policy the policy to apply
	 * @param keys the identifiers; all must be under every window
	 * @param estimate permits to take up front, at least 1
	 * @return the reservation
	 */
	default CompletableFuture<RateLimitReservation> reserveAsync(String limitName, String limitId,
			RateLimitPolicy policy, List<String> keys, int estimate) {
		return tryAcquireAsync(limitName, limitId, policy, keys, estimate)
			.thenApply((decision) -> RateLimitReservation.unsettled(decision, estimate));
	}

	/**
	 * Adds or replaces a named limit at run time, e.g. per plan or tenant. Counters are
	 * kept for every window whose period and algorithm are unchanged.
	 * @param limitName the limit name
	 * @param policy the new policy
	 */
	void define(String limitName, RateLimitPolicy policy);

	/**
	 * The policy of a named limit.
	 * @param limitName the limit name
	 * @return the policy, if the limit exists
	 */
	Optional<RateLimitPolicy> policy(String limitName);

}
