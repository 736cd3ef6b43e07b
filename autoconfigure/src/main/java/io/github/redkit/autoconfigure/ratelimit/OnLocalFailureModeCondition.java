package io.github.redkit.autoconfigure.ratelimit;

import io.github.redkit.ratelimit.RateLimitFailureMode;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code redkit.rate-limit.failure-mode} is {@code local}, bound as the
 * properties bind it (any relaxed form of the name and value).
 */
class OnLocalFailureModeCondition extends SpringBootCondition {

	private static final String PROPERTY = "redkit.rate-limit.failure-mode";

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		// a value that does not bind fails start-up when the properties are bound
		RateLimitFailureMode mode = Binder.get(context.getEnvironment())
			.bind(PROPERTY, Bindable.of(RateLimitFailureMode.class))
			.orElse(RateLimitFailureMode.ALLOW);
		return (mode == RateLimitFailureMode.LOCAL) ? ConditionOutcome.match(PROPERTY + " is local")
				: ConditionOutcome.noMatch(PROPERTY + " is " + mode);
	}

}
