package io.github.redkit.autoconfigure.pubsub;

import io.github.redkit.pubsub.ControlSnapshot;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image needs to know ahead of time about the control snapshots, which
 * applications read as JSON.
 */
class PubSubRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), ControlSnapshot.class);
	}

}
