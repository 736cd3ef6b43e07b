package io.github.redkit.gateway.mvc;

import java.util.UUID;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.gateway.autoconfigure.RedkitGatewayMvcAutoConfiguration;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.cloud.gateway.server.mvc.filter.FilterSupplier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

class RedkitGatewayMvcAutoConfigurationTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RateLimitAutoConfiguration.class, RedkitGatewayMvcAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.key-prefix=gateway-mvc-" + UUID.randomUUID());

	@Test
	void makesTheFilterKnownToTheGatewayOnTheRateLimiter() {
		this.runner
			.run((context) -> assertThat(context).hasSingleBean(RedkitRateLimitFilterFunctions.FilterSupplier.class)
				.getBean(RedkitRateLimitFilterFunctions.FilterSupplier.class)
				.satisfies((supplier) -> assertThat(supplier.get())
					.anySatisfy((method) -> assertThat(method.getName()).isEqualTo("redkitRateLimit"))));
	}

	/**
	 * The gateway takes the first of a filter's methods its arguments match, in the order
	 * the supplier lists them, and the arguments form matches any arguments: listed
	 * before the shortcut (as {@code Class.getMethods()} sometimes did), it took
	 * {@code RedkitRateLimit=gw} and failed the application's start with "needs at least
	 * one limit".
	 */
	@Test
	void listsTheShortcutBeforeTheArgumentsFormAndNothingElse() throws NoSuchMethodException {
		assertThat(new RedkitRateLimitFilterFunctions.FilterSupplier().get()).containsExactly(
				RedkitRateLimitFilterFunctions.class.getMethod("redkitRateLimit", String[].class),
				RedkitRateLimitFilterFunctions.class.getMethod("redkitRateLimit",
						RedkitRateLimitFilterFunctions.RateLimitConfig.class));
	}

	@Test
	void backsOffWithoutServerMvc() {
		this.runner.withClassLoader(new FilteredClassLoader(FilterSupplier.class))
			.run((context) -> assertThat(context).hasSingleBean(RateLimiter.class)
				.doesNotHaveBean(RedkitRateLimitFilterFunctions.FilterSupplier.class));
	}

	@Test
	void backsOffOutsideAServletApplication() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
					RateLimitAutoConfiguration.class, RedkitGatewayMvcAutoConfiguration.class))
			.withPropertyValues(RedisServers.standalone().springProperties())
			.run((context) -> assertThat(context).hasSingleBean(RateLimiter.class)
				.doesNotHaveBean(RedkitRateLimitFilterFunctions.FilterSupplier.class));
	}

	@Test
	void backsOffWithoutTheRateLimiter() {
		this.runner.withPropertyValues("redkit.rate-limit.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RedkitRateLimitFilterFunctions.FilterSupplier.class));
	}

	@Test
	void backsOffWhenTheApplicationDeclaresOne() {
		this.runner.withUserConfiguration(OwnSupplierConfiguration.class)
			.run((context) -> assertThat(context).hasSingleBean(RedkitRateLimitFilterFunctions.FilterSupplier.class)
				.hasBean("mine"));
	}

	@Test
	void canBeDisabled() {
		this.runner.withPropertyValues("redkit.gateway.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RedkitRateLimitFilterFunctions.FilterSupplier.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnSupplierConfiguration {

		@Bean
		RedkitRateLimitFilterFunctions.FilterSupplier mine() {
			return new RedkitRateLimitFilterFunctions.FilterSupplier();
		}

	}

}
