package io.github.redkit.core;

import java.util.Map;

/**
 * Where every capability observes its decisions (spans, when tracing is on): one seam,
 * like {@link RedkitMetrics}, so that a capability never depends on Micrometer itself.
 * The Micrometer implementation is {@link MicrometerRedkitObservations}; an application
 * replaces it with a bean of this type. Names must stay low-cardinality: a limit, lock or
 * queue name, never a key or a payload.
 */
public interface RedkitObservations {

	/** Observes nothing: for applications without Micrometer, and for tests. */
	RedkitObservations NONE = new RedkitObservations() {

		@Override
		public RedkitObservation start(RedkitObservationKind kind, String name) {
			return RedkitObservation.NONE;
		}

		@Override
		public RedkitObservation startUnscoped(RedkitObservationKind kind, String name) {
			return RedkitObservation.NONE;
		}

		@Override
		public RedkitObservation startSend(String queue, Map<String, String> headers) {
			return RedkitObservation.NONE;
		}

		@Override
		public RedkitObservation startHandle(String queue, Map<String, String> headers) {
			return RedkitObservation.NONE;
		}

	};

	/**
	 * Starts observing a decision and puts it in scope.
	 * @param kind what is decided
	 * @param name the limit, lock, step or channel name (low-cardinality)
	 * @return the started observation, to close once decided
	 */
	RedkitObservation start(RedkitObservationKind kind, String name);

	/**
	 * Starts observing something that outlives the current call (a held lock), without
	 * putting it in scope: it may be closed on another thread.
	 * @param kind what is observed
	 * @param name the lock name (low-cardinality)
	 * @return the started observation, to close when it ends
	 */
	default RedkitObservation startUnscoped(RedkitObservationKind kind, String name) {
		return RedkitObservation.NONE;
	}

	/**
	 * Starts observing a queue send and writes the trace context into the message's
	 * headers.
	 * @param queue the queue name
	 * @param headers the message's headers, filled in
	 * @return the started observation, to close once sent
	 */
	RedkitObservation startSend(String queue, Map<String, String> headers);

	/**
	 * Starts observing the handling of a queue message, continuing the trace whose
	 * context its headers carry.
	 * @param queue the queue name
	 * @param headers the message's headers (empty for a message sent without)
	 * @return the started observation, to close once handled
	 */
	RedkitObservation startHandle(String queue, Map<String, String> headers);

}
