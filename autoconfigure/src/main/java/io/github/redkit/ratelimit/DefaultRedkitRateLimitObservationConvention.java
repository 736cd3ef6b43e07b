package io.github.redkit.ratelimit;

import io.github.redkit.core.DefaultRedkitObservationConvention;
import io.micrometer.observation.Observation;

/**
 * The default {@link RedkitRateLimitObservationConvention}: {@code redkit.limit} (the
 * limit's name) and {@code redkit.outcome} ({@code allowed}, {@code denied} or
 * {@code failed}).
 */
public class DefaultRedkitRateLimitObservationConvention extends DefaultRedkitObservationConvention
		implements RedkitRateLimitObservationConvention {

	/**
	 * Creates the convention.
	 */
	public DefaultRedkitRateLimitObservationConvention() {
		super(RateLimitObservationKind.DECISION);
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return RedkitRateLimitObservationConvention.super.supportsContext(context);
	}

}
