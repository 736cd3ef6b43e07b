package io.github.redkit.queue.internal;

import io.github.redkit.core.RedkitMeter;

/**
 * The meters of queue messages, recorded through {@code QueueEvents}. Tags: {@code queue}
 * (a configured or annotated queue name, never a message id) and {@code outcome}.
 */
public final class QueueMeters {

	/**
	 * Messages settled; outcome: processed, failed, retried, dead-lettered, dropped,
	 * not-owned (a failure reported after the visibility was lost), late-ack (an ack
	 * after the visibility was lost: the message is, or will be, delivered again) or
	 * trimmed (stream store: a held message whose entry a writer deleted, found by its
	 * extend, release or retry).
	 */
	public static final RedkitMeter MESSAGES = RedkitMeter.counter("redkit.queue.messages",
			"Messages settled, by outcome");

	/** Time spent in queue listeners; outcome: success or failure. */
	public static final RedkitMeter PROCESSING = RedkitMeter.timer("redkit.queue.processing",
			"Time spent in queue listeners");

	private QueueMeters() {
	}

}
