package io.github.redkit.idempotency;

import java.util.Set;
import java.util.TreeSet;

/**
 * A step cannot be decided yet: its first run, or a step it depends on, is still running
 * (or crashed and its lease has not ended). Nothing ran; retry later. Spring MVC answers
 * 409 Conflict.
 */
public class StepInProgressException extends StepException {

	/**
	 * Creates an exception.
	 * @param operation the operation id
	 * @param step the step
	 * @param inProgressSteps the other steps running, empty when the step itself runs
	 */
	public StepInProgressException(String operation, String step, Set<String> inProgressSteps) {
		super(inProgressSteps.isEmpty() ? "Step '" + step + "' of operation '" + operation + "' is in progress"
				: "Step '" + step + "' of operation '" + operation + "' waits for the steps in progress "
						+ new TreeSet<>(inProgressSteps),
				operation, step);
	}

}
