package io.github.redkit.autoconfigure;

import java.util.List;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when a list property has at least one entry, in whatever form (even a malformed
 * one, so that it fails start-up instead of being ignored): a capability's routes, say.
 */
public abstract class OnConfiguredListCondition extends SpringBootCondition {

	private final String property;

	private final Class<?> element;

	/**
	 * Creates the condition.
	 * @param property the list's property
	 * @param element the type its entries bind to
	 */
	protected OnConfiguredListCondition(String property, Class<?> element) {
		this.property = property;
		this.element = element;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		boolean configured = Binder.get(context.getEnvironment())
			.bind(this.property, Bindable.listOf(this.element))
			.map(List::size)
			.orElse(0) > 0;
		return configured ? ConditionOutcome.match(this.property + " is configured")
				: ConditionOutcome.noMatch("no " + this.property);
	}

}
