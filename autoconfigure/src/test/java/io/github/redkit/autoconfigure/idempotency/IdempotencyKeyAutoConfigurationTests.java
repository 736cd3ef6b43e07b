package io.github.redkit.autoconfigure.idempotency;

import java.util.UUID;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.idempotency.web.IdempotencyKeyFilter;
import io.github.redkit.idempotency.web.IdempotencyKeyScopeResolver;
import io.github.redkit.idempotency.web.IdempotencyKeyWebFilter;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the {@code Idempotency-Key} filters are created, and how a malformed route fails
 * start-up.
 */
class IdempotencyKeyAutoConfigurationTests {

	private static final String[] REDIS = RedisServers.standalone().springProperties();

	private final WebApplicationContextRunner servlet = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				IdempotencyAutoConfiguration.class))
		.withPropertyValues(REDIS)
		.withPropertyValues("redkit.key-prefix=redkit-test-" + UUID.randomUUID());

	private final ReactiveWebApplicationContextRunner reactive = new ReactiveWebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				IdempotencyAutoConfiguration.class))
		.withPropertyValues(REDIS)
		.withPropertyValues("redkit.key-prefix=redkit-test-" + UUID.randomUUID());

	@Test
	void noFilterWithoutRoutes() {
		this.servlet.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyKeyFilter.class));
		this.reactive
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyKeyWebFilter.class));
	}

	@Test
	void eachStackGetsItsFilterForTheRoutes() {
		this.servlet.withPropertyValues("redkit.idempotency.http.routes[0].path=/payments/**")
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyKeyFilter.class)
				.doesNotHaveBean(IdempotencyKeyWebFilter.class));
		this.reactive.withPropertyValues("redkit.idempotency.http.routes[0].path=/payments/**")
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyKeyWebFilter.class)
				.doesNotHaveBean(IdempotencyKeyFilter.class));
	}

	@Test
	void keysAreScopedToTheUserUnlessTheApplicationDeclaresAResolver() {
		this.servlet.withPropertyValues("redkit.idempotency.http.routes[0].path=/payments/**")
			.run((context) -> assertThat(context).hasSingleBean(IdempotencyKeyScopeResolver.class));
		IdempotencyKeyScopeResolver own = IdempotencyKeyScopeResolver.tenantHeader("X-Tenant");
		this.reactive.withPropertyValues("redkit.idempotency.http.routes[0].path=/payments/**")
			.withBean(IdempotencyKeyScopeResolver.class, () -> own)
			.run((context) -> assertThat(context).getBean(IdempotencyKeyScopeResolver.class).isSameAs(own));
		fails("redkit.idempotency.http.anonymous=everyone", "everyone");
	}

	@Test
	void aMalformedRouteFailsStartUpNamingItsProperty() {
		fails("redkit.idempotency.http.routes[0].methods=GET", "redkit.idempotency.http.routes[0].methods");
		fails("redkit.idempotency.http.routes[0].path=", "redkit.idempotency.http.routes[0].path is required");
		this.servlet.withPropertyValues("redkit.idempotency.http.routes[0].path=/a/{unclosed")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("redkit.idempotency.http.routes[0].path is not a path pattern"));
		this.servlet
			.withPropertyValues("redkit.idempotency.http.routes[0].path=/payments", "redkit.idempotency.http.lease=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.idempotency.http.lease"));
		this.servlet
			.withPropertyValues("redkit.idempotency.http.routes[0].path=/payments",
					"redkit.idempotency.http.max-key-length=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.idempotency.http.max-key-length"));
	}

	private void fails(String property, String message) {
		this.servlet.withPropertyValues("redkit.idempotency.http.routes[0].path=/payments", property)
			.run((context) -> assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining(message));
	}

}
