package io.github.redkit.idempotency;

/**
 * A refusal about one step of one operation: the base of the idempotency exceptions, so
 * that a handler can catch them together and always knows the operation and the step.
 */
public abstract class StepException extends RuntimeException {

	private final String operation;

	private final String step;

	/**
	 * Creates an exception.
	 * @param message the message
	 * @param operation the operation id
	 * @param step the step
	 */
	protected StepException(String message, String operation, String step) {
		super(message);
		this.operation = operation;
		this.step = step;
	}

	/**
	 * The operation.
	 * @return its id
	 */
	public String getOperation() {
		return this.operation;
	}

	/**
	 * The step.
	 * @return the step
	 */
	public String getStep() {
		return this.step;
	}

}
