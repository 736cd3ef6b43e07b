package io.github.redkit.idempotency;

/**
 * A claim lost its step before completing it: its lease ran out (the holder stalled, or
 * Redis could not be reached to renew it) and another delivery took the step over, or
 * completed it. The result was not recorded; the step's record is the other holder's.
 */
public class StepClaimLostException extends RuntimeException {

	private final String operation;

	private final String step;

	/**
	 * Creates an exception.
	 * @param operation the operation
	 * @param step the step whose claim was lost
	 */
	public StepClaimLostException(String operation, String step) {
		super("The claim of step '" + step + "' of operation '" + operation
				+ "' was lost (its lease ran out and another delivery took the step over); its result was not"
				+ " recorded");
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
	 * The step whose claim was lost.
	 * @return the step
	 */
	public String getStep() {
		return this.step;
	}

}
