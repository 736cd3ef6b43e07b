package io.github.redkit.idempotency;

import java.util.Set;
import java.util.TreeSet;

/**
 * A step cannot be decided yet: its first run, or a step it depends on, is still running
 * (or crashed and its lease has not ended). Nothing ran; retry later. Spring MVC answers
 * 409 Conflict.
 */
public class StepInProgressException extends RuntimeException {

	private final String operation;

	private final String step;

	/**
	 * Creates an exception.
	 * @param operation the operation id
	 * @param step the step
	 * @param inProgressSteps the other steps running, empty when the step itself runs
	 */
	public StepInProgressException(String operation, String step, Set<String> inProgressSteps) {
		super(inProgressSteps.isEmpty() ? "Step '" + step + "' of operation '" + operation + "' is in progress"
				: "Step '" + step + "' of operation '" + operation + "' waits for the steps in progress "
						+ new TreeSet<>(inProgressSteps));
		this.operation = operation;
		this.step = step;
	}

	/**
	 * The operation id.
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
