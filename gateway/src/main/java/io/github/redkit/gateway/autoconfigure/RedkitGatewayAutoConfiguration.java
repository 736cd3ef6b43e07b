package io.github.redkit.gateway.autoconfigure;

import io.github.redkit.gateway.RedkitGatewayRateLimiter;
import io.github.redkit.ratelimit.ReactiveRateLimiter;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/**
 * Spring Cloud Gateway on Redkit: a {@link RedkitGatewayRateLimiter} named
 * {@code redkitGatewayRateLimiter} when the gateway is on the classpath and Redkit's
 * {@link ReactiveRateLimiter} exists. It is the primary gateway {@link RateLimiter}, so
 * the {@code RequestRateLimiter} filter uses it unless a route names another (say
 * {@code #{@redisRateLimiter}}). Runs before the gateway's own auto-configuration, whose
 * filter factory is created only when a {@code RateLimiter} bean exists.
 */
@AutoConfiguration(afterName = "io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration",
		beforeName = "org.springframework.cloud.gateway.config.GatewayAutoConfiguration")
@ConditionalOnClass(RateLimiter.class)
@ConditionalOnBean(ReactiveRateLimiter.class)
@ConditionalOnBooleanProperty(name = "spring.cloud.gateway.server.webflux.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "redkit.gateway.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedkitGatewayProperties.class)
public final class RedkitGatewayAutoConfiguration {

	@Bean
	@Primary
	@ConditionalOnMissingBean
	RedkitGatewayRateLimiter redkitGatewayRateLimiter(ReactiveRateLimiter rateLimiter,
			ObjectProvider<ConfigurationService> configurationService) {
		return new RedkitGatewayRateLimiter(rateLimiter, configurationService.getIfAvailable());
	}

}
