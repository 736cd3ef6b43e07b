package io.github.redkit.gateway.mvc;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.cloud.gateway.server.mvc.config.FilterProperties;
import org.springframework.cloud.gateway.server.mvc.config.GatewayMvcProperties;
import org.springframework.cloud.gateway.server.mvc.config.RouteProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

import static io.github.redkit.gateway.mvc.RedkitRateLimitFilterFunctions.redkitRateLimit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.cloud.gateway.server.mvc.filter.BeforeFilterFunctions.uri;
import static org.springframework.cloud.gateway.server.mvc.handler.GatewayRouterFunctions.route;
import static org.springframework.cloud.gateway.server.mvc.handler.HandlerFunctions.http;

/**
 * The Server MVC configuration of {@code docs/rate-limits.md}, bound as the gateway binds
 * it (the filter's arguments as its {@code @Configurable} binding reads them), and its
 * Java route built.
 */
class GatewayMvcDocsTests {

	@Test
	void theRoutesNameTheirLimitsAndIdentifiers() throws Exception {
		MutablePropertySources sources = new MutablePropertySources();
		for (PropertySource<?> source : new YamlPropertySourceLoader().load("gateway-mvc",
				new ClassPathResource("docs/gateway-mvc.yml"))) {
			sources.addLast(source);
		}
		Binder binder = new Binder(ConfigurationPropertySources.from(sources));
		GatewayMvcProperties gateway = binder.bind(GatewayMvcProperties.PREFIX, GatewayMvcProperties.class).get();
		List<RouteProperties> routes = gateway.getRoutes();
		FilterProperties shortcut = routes.get(0).getFilters().get(0);
		assertThat(shortcut.getName()).isEqualTo("RedkitRateLimit");
		assertThat(shortcut.getArgs()).containsValue("api");
		FilterProperties full = routes.get(1).getFilters().get(0);
		assertThat(full.getName()).isEqualTo("RedkitRateLimit");
		RedkitRateLimitFilterFunctions.RateLimitConfig config = new Binder(
				new MapConfigurationPropertySource(full.getArgs()))
			.bindOrCreate("", RedkitRateLimitFilterFunctions.RateLimitConfig.class);
		assertThat(config.getLimits()).containsExactly("api", "daily");
		assertThat(config.getKeys()).containsExactly("principal-or-ip", "header:X-Tenant");
		assertThat(config.getCost()).isEqualTo(1);
		assertThat(binder.bind("redkit.rate-limit.limits.daily.windows[0].limit", Long.class).get()).isEqualTo(5000);
	}

	@Test
	void theJavaRouteIsBuilt() {
		assertThat(new JavaRoutes().api()).isNotNull();
	}

	@Configuration(proxyBeanMethods = false)
	static class JavaRoutes {

		// tag::java-route[]
		@Bean
		RouterFunction<ServerResponse> api() {
			return route("api").GET("/api/**", http())
				.before(uri("http://backend:8080"))
				.filter(redkitRateLimit((config) -> config.setLimits(List.of("api", "daily"))
					.setKeyResolver(RequestKeys.all(RequestKeys.principalOrAddress(), RequestKeys.header("X-Tenant")))))
				.build();
		}
		// end::java-route[]

	}

}
