package io.github.redkit.autoconfigure.region;

import java.util.List;
import java.util.Map;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code redkit.regions.replicate} names what
 * {@link ConditionalOnReplicated} asks for.
 */
final class OnReplicatedCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Map<String, Object> attributes = metadata.getAnnotationAttributes(ConditionalOnReplicated.class.getName());
		String kind = (attributes != null) ? (String) attributes.get("value") : "";
		List<String> replicated = Binder.get(context.getEnvironment())
			.bind("redkit.regions.replicate", Bindable.listOf(String.class))
			.orElseGet(() -> new RegionProperties().getReplicate());
		return replicated.contains(kind) ? ConditionOutcome.match("redkit.regions.replicate names " + kind)
				: ConditionOutcome.noMatch("redkit.regions.replicate does not name " + kind);
	}

}
