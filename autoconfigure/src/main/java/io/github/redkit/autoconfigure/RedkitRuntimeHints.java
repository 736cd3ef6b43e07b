package io.github.redkit.autoconfigure;

import io.github.redkit.actuate.RedkitDashboardWebExtension;
import io.github.redkit.core.internal.KeyExpressionEvaluator;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image of an application that uses Redkit needs to know ahead of time
 * about Redkit's own classes: the Lua scripts its beans load as resources (and the
 * dashboard page), and the SpEL root object key expressions read ({@code #root.method},
 * {@code #root.args}...). A capability registers its own types on its auto-configuration
 * ({@code @ImportRuntimeHints}); the types of the application's own annotated methods are
 * registered by {@link RedkitAnnotatedMethodsAotProcessor}.
 */
class RedkitRuntimeHints implements RuntimeHintsRegistrar {

	/** Every script of every capability. */
	static final String SCRIPTS = "META-INF/redkit/scripts/*.lua";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(SCRIPTS);
		hints.resources().registerPattern(RedkitDashboardWebExtension.PAGE);
		hints.reflection()
			.registerType(KeyExpressionEvaluator.KeyExpressionRoot.class, MemberCategory.INVOKE_PUBLIC_METHODS,
					MemberCategory.ACCESS_DECLARED_FIELDS);
	}

}
