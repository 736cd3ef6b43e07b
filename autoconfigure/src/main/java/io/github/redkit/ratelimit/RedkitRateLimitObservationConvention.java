package io.github.redkit.ratelimit;

import io.github.redkit.core.RedkitObservationContext;
import io.github.redkit.core.RedkitObservationConvention;
import io.micrometer.observation.Observation;

/**
 * Name and key values of the {@code redkit.ratelimit.decision} observation: declare a
 * bean of this type to replace {@link DefaultRedkitRateLimitObservationConvention}.
 */
public interface RedkitRateLimitObservationConvention extends RedkitObservationConvention {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof RedkitObservationContext redkit
				&& redkit.getObservationKind() == RateLimitObservationKind.DECISION;
	}

}
