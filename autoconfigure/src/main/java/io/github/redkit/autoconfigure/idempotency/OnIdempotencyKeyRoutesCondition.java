package io.github.redkit.autoconfigure.idempotency;

import java.util.List;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when at least one {@code redkit.idempotency.http.routes} entry is configured,
 * in whatever form (even a malformed one, so that it fails start-up instead of being
 * ignored).
 */
class OnIdempotencyKeyRoutesCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		boolean configured = Binder.get(context.getEnvironment())
			.bind("redkit.idempotency.http.routes", Bindable.listOf(IdempotencyProperties.Route.class))
			.map(List::size)
			.orElse(0) > 0;
		return configured ? ConditionOutcome.match("redkit.idempotency.http.routes is configured")
				: ConditionOutcome.noMatch("no redkit.idempotency.http.routes");
	}

}
