package io.github.redkit.idempotency;

/**
 * Receives the outcome of every step claim, for metrics. Tagged by step name only: an
 * operation id is never a tag.
 */
public interface StepMetrics {

	/** Records nothing. */
	StepMetrics NONE = (step, outcome) -> {
	};

	/**
	 * Records one outcome.
	 * @param step the step name
	 * @param outcome {@code claimed}, {@code duplicate}, {@code out_of_order},
	 * {@code in_progress}, {@code key_reused} or {@code unavailable}
	 */
	void record(String step, String outcome);

}
