package io.github.redkit.autoconfigure.idempotency;

import io.github.redkit.autoconfigure.OnConfiguredListCondition;

/**
 * Matches when at least one {@code redkit.idempotency.http.routes} entry is configured.
 */
class OnIdempotencyKeyRoutesCondition extends OnConfiguredListCondition {

	OnIdempotencyKeyRoutesCondition() {
		super("redkit.idempotency.http.routes", IdempotencyProperties.Route.class);
	}

}
