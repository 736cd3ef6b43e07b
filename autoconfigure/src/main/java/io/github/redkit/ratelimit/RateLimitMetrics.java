package io.github.redkit.ratelimit;

/**
 * Records rate-limit decisions; Micrometer's implementation is
 * {@link MicrometerRateLimitMetrics}.
 */
public interface RateLimitMetrics {

	/** Records nothing. */
	RateLimitMetrics NONE = (limitName, outcome, nanos) -> {
	};

	/**
	 * Records one decision.
	 * @param limitName the limit
	 * @param outcome the outcome
	 * @param nanos how long the decision took
	 */
	void record(String limitName, Outcome outcome, long nanos);

	/**
	 * Records the end of one give-back: permits that some cluster slots took for a call
	 * another slot refused or did not decide.
	 * @param limitName the limit
	 * @param outcome whether Redis confirmed the give-back
	 */
	default void recordRefund(String limitName, RefundOutcome outcome) {
	}

	/**
	 * What a decision came to.
	 */
	enum Outcome {

		/** Under the limit. */
		ALLOWED("allowed"),

		/** Over the limit. */
		DENIED("denied"),

		/** Redis unavailable, let through. */
		FAILED_OPEN("failed-open"),

		/** Redis unavailable, refused. */
		FAILED_CLOSED("failed-closed");

		private final String tag;

		Outcome(String tag) {
			this.tag = tag;
		}

		/**
		 * The metric tag value.
		 * @return the tag
		 */
		public String tag() {
			return this.tag;
		}

	}

	/**
	 * What a give-back came to.
	 */
	enum RefundOutcome {

		/** Redis confirmed that the permits are back. */
		GIVEN_BACK("given-back"),

		/** Not confirmed after every attempt: the permits may still be taken. */
		FAILED("failed");

		private final String tag;

		RefundOutcome(String tag) {
			this.tag = tag;
		}

		/**
		 * The metric tag value.
		 * @return the tag
		 */
		public String tag() {
			return this.tag;
		}

	}

}
