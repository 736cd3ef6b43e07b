package io.github.redkit.concurrency;

import org.jspecify.annotations.Nullable;

/**
 * Redis could not be asked for a permit in time and the failure mode is {@code deny}. In
 * Spring MVC it becomes {@code 503 Service Unavailable}.
 */
public class ConcurrencyLimiterUnavailableException extends RuntimeException {

	private final String limitName;

	/**
	 * Creates an exception.
	 * @param limitName the limit that could not be checked
	 * @param cause the Redis failure
	 */
	public ConcurrencyLimiterUnavailableException(String limitName, @Nullable Throwable cause) {
		super("Concurrency limit '" + limitName + "' cannot be checked: Redis is unavailable", cause);
		this.limitName = limitName;
	}

	/**
	 * The limit that could not be checked.
	 * @return the limit name
	 */
	public String getLimitName() {
		return this.limitName;
	}

}
