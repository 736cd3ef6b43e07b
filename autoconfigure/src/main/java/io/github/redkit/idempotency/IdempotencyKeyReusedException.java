package io.github.redkit.idempotency;

/**
 * An idempotency key (an operation's step) was used again with a different request
 * payload: the request is refused rather than answered with another request's result.
 * Spring MVC answers 422 Unprocessable Content.
 */
public class IdempotencyKeyReusedException extends StepException {

	/**
	 * Creates an exception.
	 * @param operation the operation id (the idempotency key)
	 * @param step the step
	 */
	public IdempotencyKeyReusedException(String operation, String step) {
		super("Idempotency key '" + operation + "' (step '" + step
				+ "') was already used with a different request payload", operation, step);
	}

}
