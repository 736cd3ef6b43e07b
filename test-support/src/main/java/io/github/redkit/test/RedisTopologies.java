package io.github.redkit.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.stream.Stream;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsProvider;
import org.junit.jupiter.params.provider.ArgumentsSource;
import org.junit.jupiter.params.support.ParameterDeclarations;

/**
 * Runs a {@code @ParameterizedClass} (or test) once per
 * {@linkplain RedisTopology#selected() selected} {@link RedisTopology}.
 */
@Target({ ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ArgumentsSource(RedisTopologies.SelectedTopologies.class)
public @interface RedisTopologies {

	/**
	 * Provides the selected topologies.
	 */
	final class SelectedTopologies implements ArgumentsProvider {

		@Override
		public Stream<? extends Arguments> provideArguments(ParameterDeclarations parameters,
				ExtensionContext context) {
			return RedisTopology.selected().stream().map(Arguments::of);
		}

	}

}
