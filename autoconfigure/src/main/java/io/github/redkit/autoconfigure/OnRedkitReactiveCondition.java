package io.github.redkit.autoconfigure;

import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;

/**
 * The condition of {@link ConditionalOnRedkitReactive}.
 */
final class OnRedkitReactiveCondition extends AnyNestedCondition {

	private static final String ENABLED = "redkit.reactive.enabled";

	OnRedkitReactiveCondition() {
		super(ConfigurationPhase.REGISTER_BEAN);
	}

	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
	@ConditionalOnBooleanProperty(name = ENABLED, matchIfMissing = true)
	static final class ReactiveWebApplication {

	}

	@ConditionalOnBooleanProperty(name = ENABLED)
	static final class AskedFor {

	}

}
