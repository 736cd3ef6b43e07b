package io.github.redkit.queue;

import io.github.redkit.core.RedkitObservationContext;
import io.github.redkit.core.RedkitObservationConvention;
import io.micrometer.observation.Observation;

/**
 * Name and key values of the {@code redkit.queue.send} observation: declare a bean of
 * this type to replace {@link DefaultRedkitQueueSendObservationConvention}.
 */
public interface RedkitQueueSendObservationConvention extends RedkitObservationConvention {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof RedkitObservationContext redkit
				&& redkit.getObservationKind() == QueueObservationKind.SEND;
	}

}
