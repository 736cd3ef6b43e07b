package io.github.redkit.idempotency;

/**
 * An idempotency key (an operation's step) was used again with a different request
 * payload: the request is refused rather than answered with another request's result.
 * Spring MVC answers 422 Unprocessable Content.
 */
public class IdempotencyKeyReusedException extends RuntimeException {

	private final String operation;

	private final String step;

	/**
	 * Creates an exception.
	 * @param operation the operation id (the idempotency key)
	 * @param step the step
	 */
	public IdempotencyKeyReusedException(String operation, String step) {
		super("Idempotency key '" + operation + "' (step '" + step
				+ "') was already used with a different request payload");
		this.operation = operation;
		this.step = step;
	}

	/**
	 * The operation id (the idempotency key).
	 * @return the id
	 */
	public String getOperation() {
		return this.operation;
	}

	/**
	 * The step.
	 * @return the step name
	 */
	public String getStep() {
		return this.step;
	}

}
