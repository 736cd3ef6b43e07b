package io.github.redkit.concurrency;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Limits how many calls run at once per key across every instance of an application: each
 * call takes a leased permit in one round trip and gives it back in one. <pre>
 * Optional&lt;ConcurrencyPermit&gt; permit = limiter.tryAcquire("exports", tenantId);
 * if (permit.isEmpty()) {
 *     throw new ConcurrencyLimitExceededException("exports", 4);
 * }
 * try (ConcurrencyPermit held = permit.get()) {
 *     return export(tenantId);
 * }
 * </pre>
 */
public interface ConcurrencyLimiter {

	/**
	 * Takes a permit of a named limit for one key, without waiting.
	 * @param limitName the limit, configured under
	 * {@code redkit.concurrency-limit.limits}
	 * @param key the key (tenant, user, resource...)
	 * @return the permit, or empty when the key already has as many calls in flight as
	 * its limit allows
	 * @throws IllegalArgumentException when the limit is unknown or the key empty
	 * @throws ConcurrencyLimiterUnavailableException when Redis cannot be reached and the
	 * failure mode is {@code deny}
	 */
	Optional<ConcurrencyPermit> tryAcquire(String limitName, String key);

	/**
	 * Takes a permit of an explicit policy, kept and counted under {@code limitName}.
	 * @param limitName the name the permits and metrics are kept under
	 * @param policy the policy to apply
	 * @param key the key
	 * @return the permit, or empty when the key is at its limit
	 */
	Optional<ConcurrencyPermit> tryAcquire(String limitName, ConcurrencyPolicy policy, String key);

	/**
	 * Takes a permit of an explicit policy whose permits are kept under an id of their
	 * own, while metrics and exceptions show a shorter name: how
	 * {@link ConcurrencyLimited @ConcurrencyLimited(limit = ...)} keeps an inline limit
	 * under the method's full signature, shown as {@code Class.method}.
	 * @param limitName the name metrics and exceptions show
	 * @param limitId the unique, stable name the permits are kept under
	 * @param policy the policy to apply
	 * @param key the key
	 * @return the permit, or empty when the key is at its limit
	 */
	default Optional<ConcurrencyPermit> tryAcquire(String limitName, String limitId, ConcurrencyPolicy policy,
			String key) {
		return tryAcquire(limitId, policy, key);
	}

	/**
	 * Takes a permit without blocking the calling thread: the answer completes when Redis
	 * answers (or the timeout passes, and the failure mode applies). The default takes it
	 * with {@link #tryAcquire(String, String)} on the common pool; Redkit's limiter sends
	 * the script without a thread waiting. A caller that gives up cancels the future:
	 * when {@code cancel} returns {@code true}, Redkit's limiter gives back the permit
	 * Redis may still grant; when it returns {@code false}, the permit arrived first and
	 * is the caller's to close.
	 * @param limitName the limit
	 * @param key the identifier
	 * @return the permit, empty when the limit is reached
	 */
	default CompletableFuture<Optional<ConcurrencyPermit>> tryAcquireAsync(String limitName, String key) {
		return CompletableFuture.supplyAsync(() -> tryAcquire(limitName, key));
	}

	/**
	 * Takes a permit of an explicit policy counted under an id of its own, without
	 * blocking the calling thread.
	 * @param limitName the name metrics and exceptions show
	 * @param limitId the name the permits are kept under
	 * @param policy the policy
	 * @param key the identifier
	 * @return the permit, empty when the limit is reached
	 */
	default CompletableFuture<Optional<ConcurrencyPermit>> tryAcquireAsync(String limitName, String limitId,
			ConcurrencyPolicy policy, String key) {
		return CompletableFuture.supplyAsync(() -> tryAcquire(limitName, limitId, policy, key));
	}

	/**
	 * The policy of a named limit.
	 * @param limitName the limit name
	 * @return the policy, if the limit exists
	 */
	Optional<ConcurrencyPolicy> policy(String limitName);

}
