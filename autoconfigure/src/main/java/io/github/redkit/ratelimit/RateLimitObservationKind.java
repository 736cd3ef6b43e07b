package io.github.redkit.ratelimit;

import io.github.redkit.core.RedkitObservationKind;

/**
 * What a rate limiter observes.
 */
public enum RateLimitObservationKind implements RedkitObservationKind {

	/** A rate limit decision ({@code RateLimiter.tryAcquire}). */
	DECISION("redkit.ratelimit.decision");

	private final String observationName;

	RateLimitObservationKind(String observationName) {
		this.observationName = observationName;
	}

	@Override
	public String observationName() {
		return this.observationName;
	}

	@Override
	public String nameKey() {
		return "redkit.limit";
	}

}
