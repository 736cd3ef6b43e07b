package io.github.redkit.queue;

import io.github.redkit.core.DefaultRedkitObservationConvention;
import io.micrometer.observation.Observation;

/**
 * The default {@link RedkitQueueSendObservationConvention}: {@code redkit.queue} (the
 * queue's name) and {@code redkit.outcome}.
 */
public class DefaultRedkitQueueSendObservationConvention extends DefaultRedkitObservationConvention
		implements RedkitQueueSendObservationConvention {

	/**
	 * Creates the convention.
	 */
	public DefaultRedkitQueueSendObservationConvention() {
		super(QueueObservationKind.SEND);
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return RedkitQueueSendObservationConvention.super.supportsContext(context);
	}

}
