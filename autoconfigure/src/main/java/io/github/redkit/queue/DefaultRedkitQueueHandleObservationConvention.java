package io.github.redkit.queue;

import io.github.redkit.core.DefaultRedkitObservationConvention;
import io.micrometer.observation.Observation;

/**
 * The default {@link RedkitQueueHandleObservationConvention}: {@code redkit.queue} (the
 * queue's name) and {@code redkit.outcome}.
 */
public class DefaultRedkitQueueHandleObservationConvention extends DefaultRedkitObservationConvention
		implements RedkitQueueHandleObservationConvention {

	/**
	 * Creates the convention.
	 */
	public DefaultRedkitQueueHandleObservationConvention() {
		super(QueueObservationKind.HANDLE);
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return RedkitQueueHandleObservationConvention.super.supportsContext(context);
	}

}
