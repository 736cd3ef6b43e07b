package io.github.redkit.ratelimit;

import io.github.redkit.core.RedkitObservationKind;

/**
 * What a rate limiter observes.
 */
public final class RateLimitObservationKind {

	/** A rate limit decision ({@code RateLimiter.tryAcquire}). */
	public static final RedkitObservationKind DECISION = new RedkitObservationKind("redkit.ratelimit.decision",
			"redkit.limit");

	private RateLimitObservationKind() {
	}

}
