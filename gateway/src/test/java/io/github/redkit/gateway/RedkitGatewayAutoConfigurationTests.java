package io.github.redkit.gateway;

import java.util.List;
import java.util.UUID;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.gateway.autoconfigure.RedkitGatewayAutoConfiguration;
import io.github.redkit.gateway.autoconfigure.RedkitGatewayProperties;
import io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration;
import io.github.redkit.ratelimit.ReactiveRateLimiter;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class RedkitGatewayAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RateLimitAutoConfiguration.class, RedkitGatewayAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.key-prefix=gateway-" + UUID.randomUUID(), "redkit.reactive.enabled=true");

	@Test
	void providesTheGatewayRateLimiterOnTheReactiveRateLimiter() {
		this.runner.run((context) -> assertThat(context).hasSingleBean(RedkitGatewayRateLimiter.class)
			.hasBean("redkitGatewayRateLimiter"));
	}

	@Test
	void backsOffWithoutTheGateway() {
		this.runner.withClassLoader(new FilteredClassLoader(RateLimiter.class))
			.run((context) -> assertThat(context).hasSingleBean(ReactiveRateLimiter.class)
				.doesNotHaveBean(RedkitGatewayRateLimiter.class));
	}

	@Test
	void backsOffWithoutTheReactiveRateLimiter() {
		this.runner.withPropertyValues("redkit.reactive.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RedkitGatewayRateLimiter.class));
	}

	@Test
	void backsOffWhenTheApplicationDeclaresOne() {
		this.runner.withUserConfiguration(OwnLimiterConfiguration.class)
			.run((context) -> assertThat(context).hasSingleBean(RedkitGatewayRateLimiter.class).hasBean("mine"));
	}

	@Test
	void canBeDisabled() {
		this.runner.withPropertyValues("redkit.gateway.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(RedkitGatewayRateLimiter.class));
	}

	@Test
	void decodesTheKeysOfSeveralResolversAndNothingElse() {
		String encoded = RedkitKeyResolvers.encode(List.of("a\u0000b", "c\\d", ""));
		assertThat(RedkitKeyResolvers.decode(encoded)).containsExactly("a\u0000b", "c\\d", "");
		assertThat(RedkitKeyResolvers.decode("a\u0000b")).containsExactly("a\u0000b");
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnLimiterConfiguration {

		@Bean
		RedkitGatewayRateLimiter mine(ReactiveRateLimiter rateLimiter) {
			return new RedkitGatewayRateLimiter(rateLimiter, null);
		}

	}

}
