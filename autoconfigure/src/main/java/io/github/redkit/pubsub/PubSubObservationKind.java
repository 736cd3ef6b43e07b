package io.github.redkit.pubsub;

import io.github.redkit.core.RedkitObservationKind;

/**
 * What pub/sub observes.
 */
public enum PubSubObservationKind implements RedkitObservationKind {

	/**
	 * A message published on a channel; named {@code publish}, not by the channel, which
	 * may be per user or per order.
	 */
	PUBLISH("redkit.pubsub.publish");

	private final String observationName;

	PubSubObservationKind(String observationName) {
		this.observationName = observationName;
	}

	@Override
	public String observationName() {
		return this.observationName;
	}

	@Override
	public String nameKey() {
		return "redkit.operation";
	}

}
