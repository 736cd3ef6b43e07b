package io.github.redkit.queue;

import io.github.redkit.core.DefaultRedkitObservationConvention;
import io.github.redkit.core.RedkitObservationKind;
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
		super(RedkitObservationKind.QUEUE_HANDLE);
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return RedkitQueueHandleObservationConvention.super.supportsContext(context);
	}

}
