package io.github.redkit.queue;

import io.github.redkit.core.RedkitObservationKind;

/**
 * What the queue observes: sends, whose context travels in the messages' headers, and
 * their handling, which continues the sender's trace.
 */
public final class QueueObservationKind {

	/** A queue send: the span whose context travels in the message. */
	public static final RedkitObservationKind SEND = new RedkitObservationKind("redkit.queue.send", "redkit.queue");

	/** A queue message handled by a listener: it continues the sender's trace. */
	public static final RedkitObservationKind HANDLE = new RedkitObservationKind("redkit.queue.handle", "redkit.queue");

	private QueueObservationKind() {
	}

}
