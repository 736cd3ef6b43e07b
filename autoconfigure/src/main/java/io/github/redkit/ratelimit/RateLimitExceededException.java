package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A call was refused by its rate limit. In Spring MVC it becomes {@code 429 Too Many
 * Requests} with {@code Retry-After}, {@code RateLimit} and {@code RateLimit-Policy}
 * headers.
 */
public class RateLimitExceededException extends RuntimeException {

	private final String limitName;

	private final @Nullable RateLimitPolicy policy;

	private final RateLimitDecision decision;

	private final List<String> keys;

	/**
	 * Creates an exception for a limit without keys.
	 * @param limitName the limit that refused the call
	 * @param policy its policy
	 * @param decision the refusal
	 */
	public RateLimitExceededException(String limitName, @Nullable RateLimitPolicy policy, RateLimitDecision decision) {
		this(limitName, policy, decision, List.of());
	}

	/**
	 * Creates an exception.
	 * @param limitName the limit that refused the call
	 * @param policy its policy
	 * @param decision the refusal
	 * @param keys the identifiers the call was counted under; empty when the limit has no
	 * keys
	 */
	public RateLimitExceededException(String limitName, @Nullable RateLimitPolicy policy, RateLimitDecision decision,
			List<String> keys) {
		// the message never shows a key: it may be an e-mail address or a token
		super("Rate limit '" + limitName + "' exceeded; retry after " + decision.retryAfter().toMillis() + " ms");
		this.limitName = limitName;
		this.policy = policy;
		this.decision = decision;
		this.keys = List.copyOf(keys);
	}

	/**
	 * The limit that refused the call.
	 * @return the limit name
	 */
	public String getLimitName() {
		return this.limitName;
	}

	/**
	 * When the call may succeed.
	 * @return the wait
	 */
	public Duration getRetryAfter() {
		return this.decision.retryAfter();
	}

	/**
	 * The policy of the limit.
	 * @return the policy, or {@code null} when unknown
	 */
	public @Nullable RateLimitPolicy getPolicy() {
		return this.policy;
	}

	/**
	 * The refusal.
	 * @return the decision
	 */
	public RateLimitDecision getDecision() {
		return this.decision;
	}

	/**
	 * The identifiers the call was counted under, e.g. for the HTTP partition key.
	 * @return the identifiers; empty when the limit has no keys
	 */
	public List<String> getKeys() {
		return this.keys;
	}

}
