package io.github.redkit.pubsub.internal;

import io.github.redkit.core.RedkitMeter;

/**
 * The meters of pub/sub, recorded through {@link io.github.redkit.core.RedkitMetrics}.
 */
final class PubSubMeters {

	/** Payloads published; tag {@code outcome}: {@code delivered} or {@code unheard}. */
	static final RedkitMeter PUBLISHED = RedkitMeter.counter("redkit.pubsub.published", "Payloads published");

	/** Messages received on the control channel. */
	static final RedkitMeter MESSAGES = RedkitMeter.counter("redkit.pubsub.messages",
			"Messages received on the control channel");

	/** Messages that could not be read. */
	static final RedkitMeter BAD_PAYLOADS = RedkitMeter.counter("redkit.pubsub.bad-payloads",
			"Messages that could not be read and were dropped");

	/** Subscriptions renewed after a reconnect. */
	static final RedkitMeter RESUBSCRIBES = RedkitMeter.counter("redkit.pubsub.resubscribes",
			"Subscriptions renewed after a reconnect");

	/** Whether the control channel is subscribed (1 or 0). */
	static final RedkitMeter SUBSCRIBED = RedkitMeter.gauge("redkit.pubsub.subscribed",
			"Whether the control channel is subscribed");

	private PubSubMeters() {
	}

}
