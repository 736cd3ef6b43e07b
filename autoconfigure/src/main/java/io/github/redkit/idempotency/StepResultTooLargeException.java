package io.github.redkit.idempotency;

/**
 * An {@link IdempotentStep} method returning a {@code Flux} emitted more elements than a
 * step records ({@code redkit.idempotency.max-flux-elements}): the step was abandoned,
 * nothing was recorded, and a retry runs it again.
 */
public class StepResultTooLargeException extends StepException {

	private final int limit;

	/**
	 * Creates an exception.
	 * @param operation the operation
	 * @param step the step
	 * @param limit how many elements a step records at most
	 */
	public StepResultTooLargeException(String operation, String step, int limit) {
		super("Step '" + step + "' of operation '" + operation + "' emitted more than " + limit
				+ " elements, more than a step records (redkit.idempotency.max-flux-elements); it was abandoned",
				operation, step);
		this.limit = limit;
	}

	/**
	 * How many elements a step records at most.
	 * @return the limit
	 */
	public int getLimit() {
		return this.limit;
	}

}
