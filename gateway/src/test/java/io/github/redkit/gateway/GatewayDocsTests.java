package io.github.redkit.gateway;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.cloud.gateway.filter.FilterDefinition;
import org.springframework.cloud.gateway.route.RouteDefinition;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gateway configuration of {@code docs/rate-limits.md}, bound as the gateway binds
 * it: one route whose {@code RequestRateLimiter} filter takes permits of {@code api}.
 */
class GatewayDocsTests {

	@Test
	void theRouteNamesTheLimitAndItsCost() throws Exception {
		MutablePropertySources sources = new MutablePropertySources();
		for (PropertySource<?> source : new YamlPropertySourceLoader().load("gateway",
				new ClassPathResource("docs/gateway.yml"))) {
			sources.addLast(source);
		}
		Binder binder = new Binder(ConfigurationPropertySources.from(sources));
		GatewayProperties gateway = binder.bind(GatewayProperties.PREFIX, GatewayProperties.class).get();
		RouteDefinition route = gateway.getRoutes().get(0);
		assertThat(route.getId()).isEqualTo("api");
		FilterDefinition filter = route.getFilters().get(0);
		assertThat(filter.getName()).isEqualTo("RequestRateLimiter");
		assertThat(filter.getArgs()).containsEntry("redkit-rate-limiter.limit", "api")
			.containsEntry("redkit-rate-limiter.cost", "1")
			.containsEntry("rate-limiter", "#{@redkitGatewayRateLimiter}");
		assertThat(binder.bind("redkit.rate-limit.limits.api.windows[1].limit", Long.class).get()).isEqualTo(1000);
	}

}
