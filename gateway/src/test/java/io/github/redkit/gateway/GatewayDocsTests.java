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
 * The gateway configurations of {@code docs/rate-limits.md} and
 * {@code docs/migrating/spring-cloud-gateway.md}, bound as the gateway binds them: one
 * route whose {@code RequestRateLimiter} filter takes permits of {@code api}, and the
 * same route on the gateway's own {@code RedisRateLimiter} before the move.
 */
class GatewayDocsTests {

	@Test
	void theRouteNamesTheLimitAndItsCost() throws Exception {
		Binder binder = binder("docs/gateway.yml");
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

	@Test
	void theMovedRouteKeepsItsKeyResolverAndNamesATokenBucket() throws Exception {
		FilterDefinition before = route(binder("docs/migrating-before.yml")).getFilters().get(0);
		assertThat(before.getArgs()).containsEntry("redis-rate-limiter.replenishRate", "10")
			.containsEntry("redis-rate-limiter.burstCapacity", "20");
		Binder after = binder("docs/migrating-after.yml");
		FilterDefinition filter = route(after).getFilters().get(0);
		assertThat(filter.getName()).isEqualTo(before.getName());
		assertThat(filter.getArgs()).containsEntry("key-resolver", before.getArgs().get("key-resolver"))
			.containsEntry("redkit-rate-limiter.limit", "api");
		assertThat(after.bind("redkit.rate-limit.limits.api.algorithm", String.class).get()).isEqualTo("token-bucket");
		assertThat(after.bind("redkit.rate-limit.limits.api.windows[0].period", String.class).get()).isEqualTo("2s");
	}

	private static RouteDefinition route(Binder binder) {
		return binder.bind(GatewayProperties.PREFIX, GatewayProperties.class).get().getRoutes().get(0);
	}

	private static Binder binder(String location) throws Exception {
		MutablePropertySources sources = new MutablePropertySources();
		for (PropertySource<?> source : new YamlPropertySourceLoader().load(location,
				new ClassPathResource(location))) {
			sources.addLast(source);
		}
		return new Binder(ConfigurationPropertySources.from(sources));
	}

}
