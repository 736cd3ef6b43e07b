package io.github.redkit.core;

/**
 * A key expression could not be turned into a key: it is invalid, it failed, or it
 * evaluated to null or an empty string.
 */
public class KeyExpressionException extends IllegalArgumentException {

	/**
	 * Creates an exception.
	 * @param message what went wrong, naming the expression and the method
	 */
	public KeyExpressionException(String message) {
		super(message);
	}

	/**
	 * Creates an exception.
	 * @param message what went wrong, naming the expression and the method
	 * @param cause the SpEL failure
	 */
	public KeyExpressionException(String message, Throwable cause) {
		super(message, cause);
	}

}
