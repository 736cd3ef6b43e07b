package io.github.redkit.autoconfigure.region;

import java.util.List;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code redkit.regions.replicate} names {@code budgets}.
 */
final class OnReplicatedBudgets extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		List<String> replicated = Binder.get(context.getEnvironment())
			.bind("redkit.regions.replicate", Bindable.listOf(String.class))
			.orElseGet(() -> new RegionProperties().getReplicate());
		return replicated.contains("budgets") ? ConditionOutcome.match("redkit.regions.replicate names budgets")
				: ConditionOutcome.noMatch("redkit.regions.replicate does not name budgets");
	}

}
