package io.github.redkit.concurrency;

/**
 * A call was refused because its key already had as many calls in flight as its
 * concurrency limit allows. In Spring MVC it becomes {@code 429 Too Many Requests} with
 * the IETF {@code RateLimit} fields of a {@code concurrent-requests} quota.
 */
public class ConcurrencyLimitExceededException extends RuntimeException {

	private final String limitName;

	private final int limit;

	/**
	 * Creates an exception.
	 * @param limitName the limit that refused the call
	 * @param limit calls it lets run at once per key, or {@code 0} when unknown
	 */
	public ConcurrencyLimitExceededException(String limitName, int limit) {
		super("Concurrency limit '" + limitName + "' reached" + ((limit > 0) ? " (" + limit + " in flight)" : ""));
		this.limitName = limitName;
		this.limit = limit;
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
