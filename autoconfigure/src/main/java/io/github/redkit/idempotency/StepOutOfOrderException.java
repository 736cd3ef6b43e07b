package io.github.redkit.idempotency;

import java.util.Set;
import java.util.TreeSet;

/**
 * A step arrived when the done steps of its operation were not exactly the ones it comes
 * after (e.g. a {@code notice} before the {@code bid}, or a {@code timeout} after the
 * {@code notice}). Nothing ran. Spring MVC answers 409 Conflict.
 */
public class StepOutOfOrderException extends StepException {

	private final Set<String> expectedSteps;

	private final Set<String> recordedSteps;

	/**
	 * Creates an exception.
	 * @param operation the operation id
	 * @param step the refused step
	 * @param expectedSteps the steps it must come after
	 * @param recordedSteps the steps done (or running) when it was refused
	 */
	public StepOutOfOrderException(String operation, String step, Set<String> expectedSteps,
			Set<String> recordedSteps) {
		super("Step '" + step + "' of operation '" + operation + "' is out of order: it must come after exactly "
				+ new TreeSet<>(expectedSteps) + " but the recorded steps are " + new TreeSet<>(recordedSteps),
				operation, step);
		this.expectedSteps = Set.copyOf(expectedSteps);
		this.recordedSteps = Set.copyOf(recordedSteps);
	}

	/**
	 * The steps the refused step must come after.
	 * @return the step names
	 */
	public Set<String> getExpectedSteps() {
		return this.expectedSteps;
	}

	/**
	 * The steps done or running when the step was refused.
	 * @return the step names
	 */
	public Set<String> getRecordedSteps() {
		return this.recordedSteps;
	}

}
