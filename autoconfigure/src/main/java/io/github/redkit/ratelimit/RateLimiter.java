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
