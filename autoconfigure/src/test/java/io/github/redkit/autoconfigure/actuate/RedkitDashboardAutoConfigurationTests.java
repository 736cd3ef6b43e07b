package io.github.redkit.autoconfigure.actuate;

import java.time.Duration;
import java.util.UUID;

import io.github.redkit.actuate.RedkitDashboardWebExtension;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.queue.QueueAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the dashboard page is served: only with {@code redkit.dashboard.enabled=true} and
 * the endpoint available over the web.
 */
class RedkitDashboardAutoConfigurationTests {

	private static final String EXPOSED = "management.endpoints.web.exposure.include=redkit";

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RateLimitAutoConfiguration.class, QueueAutoConfiguration.class, EndpointAutoConfiguration.class,
				RedkitEndpointAutoConfiguration.class, RedkitDashboardAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.key-prefix=redkit-test-" + UUID.randomUUID());

	@Test
	void offByDefault() {
		this.runner.withPropertyValues(EXPOSED)
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedkitDashboardWebExtension.class));
	}

	@Test
	void onWithTheProperty() {
		this.runner.withPropertyValues(EXPOSED, "redkit.dashboard.enabled=true")
			.run((context) -> assertThat(context).hasSingleBean(RedkitDashboardWebExtension.class));
	}

	@Test
	void carriesThePollIntervalAndLeavesTheAccessToTheSummary() {
		this.runner
			.withPropertyValues(EXPOSED, "redkit.dashboard.enabled=true", "redkit.dashboard.poll-interval=5s",
					"management.endpoint.redkit.access=UNRESTRICTED")
			.run((context) -> {
				String page = new String(context.getBean(RedkitDashboardWebExtension.class).dashboard().getBody());
				assertThat(page).contains("<meta name=\"redkit-poll-millis\" content=\"5000\">")
					.doesNotContain("redkit-access");
			});
	}

	@Test
	void absentWhenTheEndpointIsNotExposedOverTheWeb() {
		this.runner.withPropertyValues("redkit.dashboard.enabled=true")
			.run((context) -> assertThat(context).doesNotHaveBean(RedkitDashboardWebExtension.class));
		this.runner
			.withPropertyValues("redkit.dashboard.enabled=true", "management.endpoints.jmx.exposure.include=redkit",
					"spring.jmx.enabled=true")
			.run((context) -> assertThat(context).doesNotHaveBean(RedkitDashboardWebExtension.class));
	}

	@Test
	void absentWhenTheEndpointsAccessIsNone() {
		this.runner
			.withPropertyValues(EXPOSED, "redkit.dashboard.enabled=true", "management.endpoint.redkit.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(RedkitDashboardWebExtension.class));
	}

	@Test
	void absentWithoutActuator() {
		this.runner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.withPropertyValues(EXPOSED, "redkit.dashboard.enabled=true")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedkitDashboardWebExtension.class));
	}

	@Test
	void absentOutsideAWebApplication() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
					EndpointAutoConfiguration.class, RedkitEndpointAutoConfiguration.class,
					RedkitDashboardAutoConfiguration.class))
			.withPropertyValues(RedisServers.standalone().springProperties())
			.withPropertyValues(EXPOSED, "redkit.dashboard.enabled=true")
			.run((context) -> assertThat(context).doesNotHaveBean(RedkitDashboardWebExtension.class));
	}

	@Test
	void backsOffFromTheApplicationsOwnPage() {
		this.runner.withPropertyValues(EXPOSED, "redkit.dashboard.enabled=true")
			.withBean(RedkitDashboardWebExtension.class, () -> new RedkitDashboardWebExtension(Duration.ofSeconds(9)))
			.run((context) -> assertThat(
					new String(context.getBean(RedkitDashboardWebExtension.class).dashboard().getBody()))
				.contains("content=\"9000\""));
	}

}
