package io.github.redkit.ratelimit;

import java.time.Duration;

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

	/**
	 * Creates an exception.
	 * @param limitName the limit that refused the call
	 * @param policy its policy
	 * @param decision the refusal
	 */
	public RateLimitExceededException(String limitName, @Nullable RateLimitPolicy policy, RateLimitDecision decision) {
		super("Rate limit '" + limitName + "' exceeded; retry after " + decision.retryAfter().toMillis() + " ms");
		this.limitName = limitName;
		this.policy = policy;
		this.decision = decision;
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

}
