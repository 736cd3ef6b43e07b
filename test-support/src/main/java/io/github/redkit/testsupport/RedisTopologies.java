package io.github.redkit.testsupport;

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
import org.junit.jupiter.params.support.AnnotationConsumer;
import org.junit.jupiter.params.support.ParameterDeclarations;

/**
 * Runs a {@code @ParameterizedClass} (or test) once per
 * {@linkplain RedisTopology#selected(Exercises) selected} {@link RedisTopology} on which
 * what it {@linkplain #exercises() exercises} can fail: the scripts on every server
 * family and a cluster, the connection on the pool, Sentinel and a cluster (see
 * {@link Exercises}).
 */
@Target({ ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ArgumentsSource(RedisTopologies.SelectedTopologies.class)
public @interface RedisTopologies {

	/**
	 * What the suite exercises; no default, so that every suite says it.
	 * @return the scripts, the scripts on the server families, the connection, both, or
	 * the nodes
	 */
	Exercises exercises();

	/**
	 * Provides the selected topologies.
	 */
	final class SelectedTopologies implements ArgumentsProvider, AnnotationConsumer<RedisTopologies> {

		private Exercises exercises = Exercises.BOTH;

		@Override
		public void accept(RedisTopologies annotation) {
			this.exercises = annotation.exercises();
		}

		@Override
		public Stream<? extends Arguments> provideArguments(ParameterDeclarations parameters,
				ExtensionContext context) {
			return RedisTopology.selected(this.exercises).stream().map(Arguments::of);
		}

	}

}
