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

}
