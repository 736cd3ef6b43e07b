package io.github.redkit.ratelimit;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Redis could not be asked in time and the failure mode is {@code deny}. In Spring MVC it
 * becomes {@code 503 Service Unavailable}.
 */
public class RateLimiterUnavailableException extends RuntimeException {

	private final String limitName;

	private final Duration retryAfter;

	/**
	 * Creates an exception.
	 * @param limitName the limit that could not be decided
	 * @param retryAfter when Redis will be asked again
	 * @param cause the Redis failure, or {@code null} while cooling down after one
	 */
	public RateLimiterUnavailableException(String limitName, Duration retryAfter, @Nullable Throwable cause) {
		super("Rate limit '" + limitName + "' cannot be decided: Redis is unavailable", cause);
		this.limitName = limitName;
		this.retryAfter = retryAfter;
	}

	/**
	 * The limit that could not be decided.
	 * @return the limit name
	 */
	public String getLimitName() {
		return this.limitName;
	}

	/**
	 * When Redis will be asked again.
	 * @return the wait
	 */
	public Duration getRetryAfter() {
		return this.retryAfter;
	}

}
