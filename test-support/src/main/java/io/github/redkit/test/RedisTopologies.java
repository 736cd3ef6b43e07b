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
import org.junit.jupiter.params.support.AnnotationConsumer;
import org.junit.jupiter.params.support.ParameterDeclarations;

/**
 * Runs a {@code @ParameterizedClass} (or test) once per
 * {@linkplain RedisTopology#selected() selected} {@link RedisTopology}; with
 * {@code pooled = true} also on {@link RedisTopology#POOLED} whenever standalone is
 * selected; with {@code servers = true} also on the other server families selected.
 */
@Target({ ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ArgumentsSource(RedisTopologies.SelectedTopologies.class)
public @interface RedisTopologies {

	/**
	 * Whether the suite also runs on pooled, dedicated connections: for the suites that
	 * send commands asynchronously.
	 * @return {@code true} to add {@link RedisTopology#POOLED}
	 */
	boolean pooled() default false;

	/**
	 * Whether the suite also runs on the other server families this run selected (Redis
	 * 8.0, Valkey 8.1): for each capability's standalone behaviour suites.
	 * @return {@code true} to keep {@link RedisTopology#REDIS_8} and
	 * {@link RedisTopology#VALKEY_8}
	 */
	boolean servers() default false;

	/**
	 * Provides the selected topologies.
	 */
	final class SelectedTopologies implements ArgumentsProvider, AnnotationConsumer<RedisTopologies> {

		private boolean pooled;

		private boolean servers;

		@Override
		public void accept(RedisTopologies annotation) {
			this.pooled = annotation.pooled();
			this.servers = annotation.servers();
		}

		@Override
		public Stream<? extends Arguments> provideArguments(ParameterDeclarations parameters,
				ExtensionContext context) {
			return RedisTopology.selected(this.pooled, this.servers).stream().map(Arguments::of);
		}

	}

}
