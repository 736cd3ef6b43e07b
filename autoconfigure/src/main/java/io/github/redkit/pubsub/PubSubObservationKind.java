package io.github.redkit.pubsub;

import io.github.redkit.core.RedkitObservationKind;

/**
 * What pub/sub observes.
 */
public final class PubSubObservationKind {

	/**
	 * A message published on a channel; named {@code publish}, not by the channel, which
	 * may be per user or per order.
	 */
	public static final RedkitObservationKind PUBLISH = new RedkitObservationKind("redkit.pubsub.publish",
			"redkit.operation");

	private PubSubObservationKind() {
	}

}
