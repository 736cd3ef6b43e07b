package io.github.redkit.idempotency;

/**
 * A claim lost its step before completing it: its lease ran out (the holder stalled, or
 * Redis could not be reached to renew it) and another delivery took the step over, or
 * completed it. The result was not recorded; the step's record is the other holder's.
 */
public class StepClaimLostException extends StepException {

	/**
	 * Creates an exception.
	 * @param operation the operation
	 * @param step the step whose claim was lost
	 */
	public StepClaimLostException(String operation, String step) {
		super("The claim of step '" + step + "' of operation '" + operation
				+ "' was lost (its lease ran out and another delivery took the step over); its result was not"
				+ " recorded", operation, step);
	}

}
