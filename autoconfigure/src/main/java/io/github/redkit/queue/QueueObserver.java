package io.github.redkit.queue;

import java.time.Duration;

/**
 * Receives what happens to messages, for metrics. Implementations must be fast and must
 * not throw.
 */
public interface QueueObserver {

	/** An observer that ignores everything. */
	QueueObserver NONE = new QueueObserver() {
	};

	/**
	 * A message was acknowledged.
	 * @param queue the queue name
	 */
	default void processed(String queue) {
	}

	/**
	 * A message failed and was settled.
	 * @param queue the queue name
	 * @param outcome what happened to it
	 */
	default void failed(String queue, FailureOutcome outcome) {
	}

	/**
	 * A listener handled a message.
	 * @param queue the queue name
	 * @param duration how long the handler ran
	 * @param success whether it returned normally
	 */
	default void handled(String queue, Duration duration, boolean success) {
	}

}
