package io.github.redkit.concurrency;

import org.jspecify.annotations.Nullable;

/**
 * A call was refused because its key already had as many calls in flight as its
 * concurrency limit allows. In Spring MVC it becomes {@code 429 Too Many Requests} with
 * the IETF {@code RateLimit} fields of a {@code concurrent-requests} quota.
 */
public class ConcurrencyLimitExceededException extends RuntimeException {

	private final String limitName;

	private final int limit;

	private final @Nullable String key;

	/**
	 * Creates an exception for a limit without a key.
	 * @param limitName the limit that refused the call
	 * @param limit calls it lets run at once per key, or {@code 0} when unknown
	 */
	public ConcurrencyLimitExceededException(String limitName, int limit) {
		this(limitName, limit, null);
	}

	/**
	 * Creates an exception.
	 * @param limitName the limit that refused the call
	 * @param limit calls it lets run at once per key, or {@code 0} when unknown
	 * @param key the key the call was counted under, or {@code null} when the limit has
	 * none
	 */
	public ConcurrencyLimitExceededException(String limitName, int limit, @Nullable String key) {
		// the message never shows the key: it may hold request data
		super("Concurrency limit '" + limitName + "' reached" + ((limit > 0) ? " (" + limit + " in flight)" : ""));
		this.limitName = limitName;
		this.limit = limit;
		this.key = key;
	}

	/**
	 * The key the call was counted under, e.g. for the HTTP partition key.
	 * @return the key, or {@code null} when the limit has none
	 */
	public @Nullable String getKey() {
		return this.key;
	}

	/**
	 * The limit that refused the call.
	 * @return the limit name
	 */
	public String getLimitName() {
		return this.limitName;
	}

	/**
	 * Calls the limit lets run at once per key.
	 * @return the limit, or {@code 0} when unknown
	 */
	public int getLimit() {
		return this.limit;
	}

}
