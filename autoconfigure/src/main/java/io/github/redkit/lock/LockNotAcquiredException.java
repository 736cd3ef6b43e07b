package io.github.redkit.lock;

import java.time.Duration;

/**
 * A lock was held by someone else for the whole wait time. In Spring MVC it becomes a
 * {@code 409 Conflict} problem detail.
 */
public class LockNotAcquiredException extends RuntimeException {

	private final String lockName;

	private final String key;

	private final Duration waited;

	/**
	 * Creates an exception.
	 * @param lockName the lock's name (the annotation's key expression)
	 * @param key the evaluated key
	 * @param waited how long the caller waited
	 */
	public LockNotAcquiredException(String lockName, String key, Duration waited) {
		super("Lock '" + key + "' (" + lockName + ") was not acquired within " + waited.toMillis() + " ms");
		this.lockName = lockName;
		this.key = key;
		this.waited = waited;
	}

	/**
	 * The lock's name (the annotation's key expression).
	 * @return the name
	 */
	public String getLockName() {
		return this.lockName;
	}

	/**
	 * The key that was held by someone else.
	 * @return the key
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * How long the caller waited.
	 * @return the wait
	 */
	public Duration getWaited() {
		return this.waited;
	}

}
