package io.github.redkit.queue;

/**
 * What happened to a message whose handler failed.
 */
public enum FailureOutcome {

	/** It comes back after the backoff. */
	RETRIED,

	/** It reached max-attempts and went to the dead-letter queue. */
	DEAD_LETTERED,

	/** It reached max-attempts and was dropped (dead-letter off). */
	DROPPED,

	/**
	 * The caller did not own it any more: its visibility timeout had expired and it was
	 * redelivered.
	 */
	NOT_OWNED

}
