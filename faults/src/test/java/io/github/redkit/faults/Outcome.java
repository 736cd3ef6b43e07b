package io.github.redkit.faults;

/**
 * How an operation ended, as its client saw it.
 */
enum Outcome {

	/** It took effect. */
	OK,

	/**
	 * It certainly did not take effect (a refusal, or an error before anything was sent).
	 */
	REFUSED,

	/**
	 * The client does not know: a timeout, a cancel, a dropped connection. It may have
	 * taken effect, now or later.
	 */
	UNKNOWN

}
