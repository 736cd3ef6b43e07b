package io.github.redkit.autoconfigure.lock;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.ReactiveDistributedLocks;
import io.github.redkit.lock.internal.DefaultReactiveDistributedLocks;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.AbstractApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * A reactive application gets both faces of the locks; a servlet application gets the
 * blocking one only, unless it asks; an application's own reactive face wins.
 */
@Tag("tests-apart")
class ReactiveLocksAutoConfigurationTests {

	private static <R extends AbstractApplicationContextRunner<R, ?, ?>> R configured(R runner) {
		return runner
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
					LockAutoConfiguration.class))
			.withPropertyValues(RedisServers.standalone().springProperties());
	}

	@Test
	void aReactiveWebApplicationGetsBothFaces() {
		configured(new ReactiveWebApplicationContextRunner())
			.run((context) -> assertThat(context).hasSingleBean(DistributedLocks.class)
				.hasSingleBean(ReactiveDistributedLocks.class));
	}

	@Test
	void aServletApplicationGetsTheReactiveFaceOnlyWhenItAsks() {
		configured(new WebApplicationContextRunner())
			.run((context) -> assertThat(context).hasSingleBean(DistributedLocks.class)
				.doesNotHaveBean(ReactiveDistributedLocks.class));
		configured(new WebApplicationContextRunner()).withPropertyValues("redkit.reactive.enabled=true")
			.run((context) -> assertThat(context).hasSingleBean(ReactiveDistributedLocks.class));
	}

	@Test
	void anApplicationsOwnReactiveFaceWins() {
		configured(new ReactiveWebApplicationContextRunner())
			.withBean("own", ReactiveDistributedLocks.class, () -> new DefaultReactiveDistributedLocks(null))
			.run((context) -> assertThat(context).getBean(ReactiveDistributedLocks.class)
				.isSameAs(context.getBean("own")));
	}

}
