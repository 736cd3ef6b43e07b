package io.github.redkit.autoconfigure;

import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.AbstractApplicationContextRunner;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * Which applications get a capability's reactive face, written once for the capabilities
 * that have one: a reactive web application gets both faces, a servlet application that
 * did not ask gets only the blocking one, and any application that asks
 * ({@code redkit.reactive.enabled=true}) gets the reactive one. A subclass adds what its
 * capability does beyond (the tests are public: the subclasses live in the capabilities'
 * packages). Untagged: it runs only as its subclasses, compiled and run here, which would
 * inherit a tag.
 */
public abstract class ReactiveFaceTests {

	private final AutoConfigurations configurations;

	private final Class<?> blockingFace;

	private final Class<?> reactiveFace;

	/**
	 * The suite of a capability.
	 * @param capability its auto-configuration
	 * @param blockingFace the bean every application gets
	 * @param reactiveFace the bean of its reactive face
	 */
	protected ReactiveFaceTests(Class<?> capability, Class<?> blockingFace, Class<?> reactiveFace) {
		this.configurations = AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				capability);
		this.blockingFace = blockingFace;
		this.reactiveFace = reactiveFace;
	}

	/**
	 * A runner of the capability on the shared standalone server.
	 * @param <R> the runner's type
	 * @param runner a new runner of the kind of application the test wants
	 * @return the runner, configured
	 */
	protected <R extends AbstractApplicationContextRunner<R, ?, ?>> R configured(R runner) {
		return runner.withConfiguration(this.configurations)
			.withPropertyValues(RedisServers.standalone().springProperties());
	}

	@Test
	public void aReactiveWebApplicationGetsBothFaces() {
		configured(new ReactiveWebApplicationContextRunner()).run((context) -> {
			assertThat(context).hasSingleBean(this.blockingFace);
			assertThat(context).hasSingleBean(this.reactiveFace);
		});
	}

	@Test
	public void aServletApplicationGetsNoReactiveFaceItDidNotAskFor() {
		configured(new WebApplicationContextRunner()).run((context) -> {
			assertThat(context).hasSingleBean(this.blockingFace);
			assertThat(context).doesNotHaveBean(this.reactiveFace);
		});
	}

	@Test
	public void anyApplicationGetsItWhenItAsks() {
		configured(new ApplicationContextRunner()).withPropertyValues("redkit.reactive.enabled=true")
			.run((context) -> assertThat(context).hasSingleBean(this.reactiveFace));
	}

}
