package io.github.redkit.core;

/**
 * One observed decision, started by {@link RedkitObservations} and in scope on the
 * current thread until it is closed: close it on the thread that started it.
 */
public interface RedkitObservation extends AutoCloseable {

	/** Observes nothing. */
	RedkitObservation NONE = new RedkitObservation() {

		@Override
		public void outcome(String outcome) {
		}

		@Override
		public void error(Throwable error) {
		}

		@Override
		public void close() {
		}

	};

	/**
	 * Sets how the decision went (a low-cardinality value such as {@code allowed}).
	 * @param outcome the outcome
	 */
	void outcome(String outcome);

	/**
	 * Records that the decision failed.
	 * @param error the failure
	 */
	void error(Throwable error);

	/**
	 * Ends the observation and takes it out of scope.
	 */
	@Override
	void close();

}
