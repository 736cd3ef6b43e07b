package io.github.redkit.concurrency;

import java.time.Duration;

import io.github.redkit.concurrency.internal.ConcurrencyLimitSettings;
import org.jspecify.annotations.Nullable;

/**
 * Redis could not be asked for a permit in time and the failure mode is {@code deny}. In
 * Spring MVC it becomes {@code 503 Service Unavailable}.
 */
public class ConcurrencyLimiterUnavailableException extends RuntimeException {

	private final String limitName;

	private final Duration retryAfter;

	/**
	 * Creates an exception.
	 * @param limitName the limit that could not be checked
	 * @param cause the Redis failure
	 */
	public ConcurrencyLimiterUnavailableException(String limitName, @Nullable Throwable cause) {
		this(limitName, ConcurrencyLimitSettings.DEFAULT_FAILURE_COOLDOWN, cause);
	}

	/**
	 * Creates an exception.
	 * @param limitName the limit that could not be checked
	 * @param retryAfter when Redis will be asked again (the failure cooldown)
	 * @param cause the Redis failure, or {@code null} while cooling down after one
	 */
	public ConcurrencyLimiterUnavailableException(String limitName, Duration retryAfter, @Nullable Throwable cause) {
		super("Concurrency limit '" + limitName + "' cannot be checked: Redis is unavailable", cause);
		this.limitName = limitName;
		this.retryAfter = retryAfter;
	}

	/**
	 * The limit that could not be checked.
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
