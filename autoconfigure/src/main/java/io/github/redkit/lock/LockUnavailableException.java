package io.github.redkit.lock;

/**
 * Redis could not be reached in time to acquire or extend a lock: locks fail closed, so
 * the protected work does not run. In Spring MVC it becomes a
 * {@code 503 Service Unavailable} problem detail.
 */
public class LockUnavailableException extends RuntimeException {

	/**
	 * Creates an exception.
	 * @param message what was attempted, naming the key
	 * @param cause the Redis failure
	 */
	public LockUnavailableException(String message, Throwable cause) {
		super(message, cause);
	}

}
