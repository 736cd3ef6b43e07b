package io.github.redkit.queue;

import io.github.redkit.core.RedkitObservationKind;

/**
 * What the queue observes: sends, whose context travels in the messages' headers, and
 * their handling, which continues the sender's trace.
 */
public enum QueueObservationKind implements RedkitObservationKind {

	/** A queue send: the span whose context travels in the message. */
	SEND("redkit.queue.send"),

	/** A queue message handled by a listener: it continues the sender's trace. */
	HANDLE("redkit.queue.handle");

	private final String observationName;

	QueueObservationKind(String observationName) {
		this.observationName = observationName;
	}

	@Override
	public String observationName() {
		return this.observationName;
	}

	@Override
	public String nameKey() {
		return "redkit.queue";
	}

}
