package io.github.redkit.autoconfigure.ratelimit;

import io.github.redkit.autoconfigure.OnConfiguredListCondition;

/**
 * Matches when at least one {@code redkit.rate-limit.web.routes} entry is configured.
 */
class OnRateLimitRoutesCondition extends OnConfiguredListCondition {

	OnRateLimitRoutesCondition() {
		super("redkit.rate-limit.web.routes", RateLimitProperties.Route.class);
	}

}
