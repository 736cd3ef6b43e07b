package io.github.redkit.autoconfigure.actuate;

import java.util.Map;
import java.util.UUID;

import io.github.redkit.actuate.RedkitEndpoint;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.queue.QueueAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.testsupport.RedisServers;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the {@code redkit} endpoint is created, and with which capabilities.
 */
class RedkitEndpointAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RateLimitAutoConfiguration.class, QueueAutoConfiguration.class, RedkitEndpointAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.key-prefix=redkit-test-" + UUID.randomUUID());

	@Test
	void notCreatedUnlessExposed() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(RedkitEndpoint.class));
	}

	@Test
	void notCreatedWhenAccessIsNone() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=redkit",
					"management.endpoint.redkit.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(RedkitEndpoint.class));
	}

	@Test
	void showsOnlyTheCapabilitiesPresent() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=redkit", "redkit.queue.enabled=false")
			.run((context) -> {
				Map<String, Object> summary = context.getBean(RedkitEndpoint.class).summary();
				assertThat(summary.get("capabilities")).asInstanceOf(InstanceOfAssertFactories.LIST)
					.containsExactly("rate-limit");
				assertThat(context.getBean(RedkitEndpoint.class).section("queues", null, null)).isNull();
			});
	}

}
