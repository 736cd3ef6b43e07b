package io.github.redkit.pubsub;

/**
 * What Redkit's pub/sub reports; the Micrometer implementation turns it into
 * {@code redkit.pubsub.*} meters.
 */
public interface PubSubMetrics {

	/** Reports nothing. */
	PubSubMetrics NONE = new PubSubMetrics() {
	};

	/**
	 * A payload was published.
	 * @param receivers how many subscribers received it
	 */
	default void published(long receivers) {
	}

	/**
	 * A message arrived on the control channel.
	 */
	default void received() {
	}

	/**
	 * A message could not be read (not JSON, wrong shape); it was logged and dropped.
	 */
	default void badPayload() {
	}

	/**
	 * The control channel was subscribed again after a reconnect.
	 */
	default void resubscribed() {
	}

	/**
	 * Registers a gauge of whether the control channel is subscribed.
	 * @param subscription the subscription to watch
	 */
	default void watch(ControlStateSubscription subscription) {
	}

}
