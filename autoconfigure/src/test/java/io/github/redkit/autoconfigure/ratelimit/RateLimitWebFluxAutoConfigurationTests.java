package io.github.redkit.autoconfigure.ratelimit;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.ratelimit.web.RateLimitExchangeHeaders;
import io.github.redkit.ratelimit.web.RateLimitResponseHeaders;
import io.github.redkit.ratelimit.web.RateLimitRouteFilter;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;

/**
 * What a WebFlux application gets for rate limits: the allowed-call fields through the
 * exchange in the Reactor context, and the route filter only when routes are configured;
 * a malformed route fails start-up naming its property.
 */
class RateLimitWebFluxAutoConfigurationTests {

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(DataRedisAutoConfiguration.class,
			RedkitAutoConfiguration.class, RateLimitAutoConfiguration.class);

	private final ReactiveWebApplicationContextRunner reactive = new ReactiveWebApplicationContextRunner()
		.withConfiguration(CONFIGURATIONS)
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.rate-limit.limits.api.windows[0].limit=5",
				"redkit.rate-limit.limits.api.windows[0].period=1s");

	@Test
	void aWebFluxApplicationGetsTheFieldsWriterAndTheExchangeInTheContextButNoRouteFilterWithoutRoutes() {
		this.reactive.run((context) -> {
			assertThat(context).hasSingleBean(RateLimitExchangeHeaders.class);
			assertThat(context).hasSingleBean(ServerWebExchangeContextFilter.class);
			assertThat(context).doesNotHaveBean(RateLimitResponseHeaders.class);
			assertThat(context).doesNotHaveBean(RateLimitRouteFilter.class);
		});
	}

	@Test
	void anApplicationsOwnExchangeContextFilterIsKept() {
		ServerWebExchangeContextFilter own = new ServerWebExchangeContextFilter();
		this.reactive.withBean(ServerWebExchangeContextFilter.class, () -> own)
			.run((context) -> assertThat(context.getBean(ServerWebExchangeContextFilter.class)).isSameAs(own));
	}

	@Test
	void allowedCallFieldsCanBeTurnedOff() {
		this.reactive.withPropertyValues("redkit.rate-limit.response-headers=false").run((context) -> {
			assertThat(context).doesNotHaveBean(RateLimitExchangeHeaders.class);
			assertThat(context).doesNotHaveBean(ServerWebExchangeContextFilter.class);
		});
	}

	@Test
	void configuredRoutesGetTheFilterInTheConfiguredOrder() {
		this.reactive
			.withPropertyValues("redkit.rate-limit.web.routes[0].path=/api/**",
					"redkit.rate-limit.web.routes[0].limit=api", "redkit.rate-limit.web.order=-50")
			.run((context) -> assertThat(context.getBean(RateLimitRouteFilter.class).getOrder()).isEqualTo(-50));
	}

	@Test
	void aServletApplicationGetsNoWebFluxBeans() {
		new WebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withPropertyValues(RedisServers.standalone().springProperties())
			.withPropertyValues("redkit.rate-limit.limits.api.windows[0].limit=5",
					"redkit.rate-limit.limits.api.windows[0].period=1s", "redkit.rate-limit.web.routes[0].path=/api/**",
					"redkit.rate-limit.web.routes[0].limit=api")
			.run((context) -> {
				assertThat(context).hasSingleBean(RateLimitResponseHeaders.class);
				assertThat(context).doesNotHaveBean(RateLimitRouteFilter.class);
				assertThat(context).doesNotHaveBean(RateLimitExchangeHeaders.class);
			});
	}

	@Test
	void aMalformedRouteFailsStartUpNamingItsProperty() {
		assertFailure("redkit.rate-limit.web.routes[0].limit=api", "redkit.rate-limit.web.routes[0].path is required");
		assertFailure("redkit.rate-limit.web.routes[0].path=/api/{bad",
				"redkit.rate-limit.web.routes[0].path is not a path pattern");
		assertFailure("redkit.rate-limit.web.routes[0].path=/api/**",
				"redkit.rate-limit.web.routes[0].limit is required");
		assertFailure("redkit.rate-limit.web.routes[0].path=/api/**,redkit.rate-limit.web.routes[0].limit=nope",
				"redkit.rate-limit.web.routes[0].limit 'nope' is not configured");
		assertFailure(
				"redkit.rate-limit.web.routes[0].path=/api/**,redkit.rate-limit.web.routes[0].limit=api,"
						+ "redkit.rate-limit.web.routes[0].key=cookie:session",
				"redkit.rate-limit.web.routes[0].key must be 'ip', 'header:<name>', 'principal' or 'none'");
		assertFailure(
				"redkit.rate-limit.web.routes[0].path=/api/**,redkit.rate-limit.web.routes[0].limit=api,"
						+ "redkit.rate-limit.web.routes[0].methods=FETCH",
				"redkit.rate-limit.web.routes[0].methods has 'FETCH', which is not one of");
		assertFailure(
				"redkit.rate-limit.web.routes[0].path=/api/**,redkit.rate-limit.web.routes[0].limit=api,"
						+ "redkit.rate-limit.web.routes[0].cost=0",
				"redkit.rate-limit.web.routes[0].cost must be at least 1");
		assertFailure(
				"redkit.rate-limit.web.routes[0].path=/api/**,redkit.rate-limit.web.routes[0].limit=api,"
						+ "redkit.rate-limit.web.routes[0].count-statuses=600",
				"redkit.rate-limit.web.routes[0].count-statuses: '600' is not an HTTP status");
	}

	private void assertFailure(String properties, String message) {
		this.reactive.withPropertyValues(properties.split(","))
			.run((context) -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(message));
	}

}
