package io.github.redkit.idempotency;

/**
 * What claiming a step decided.
 */
public enum StepOutcome {

	/** The step is now held by the caller, which must complete or abandon it. */
	CLAIMED,

	/** The step is already done; its first result is kept. */
	DUPLICATE,

	/** The done steps of the operation are not exactly the ones the step comes after. */
	OUT_OF_ORDER,

	/**
	 * This step's first run, or a step the decision depends on, is still running: retry
	 * later.
	 */
	IN_PROGRESS

}
