package io.github.redkit.gateway.autoconfigure;

import io.github.redkit.gateway.mvc.RedkitRateLimitFilterFunctions;
import io.github.redkit.ratelimit.RateLimiter;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cloud.gateway.server.mvc.filter.FilterSupplier;
import org.springframework.context.annotation.Bean;

/**
 * Spring Cloud Gateway Server MVC on Redkit: makes the {@code RedkitRateLimit} filter of
 * {@link RedkitRateLimitFilterFunctions} known to the gateway's YAML routes when Server
 * MVC is on the classpath of a servlet application and Redkit's {@link RateLimiter}
 * exists. Java routes use the filter functions without it.
 */
@AutoConfiguration(afterName = "io.github.redkit.autoconfigure.ratelimit.RateLimitAutoConfiguration")
@ConditionalOnClass(FilterSupplier.class)
@ConditionalOnWebApplication(type = Type.SERVLET)
@ConditionalOnBean(RateLimiter.class)
@ConditionalOnBooleanProperty(name = "redkit.gateway.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedkitGatewayProperties.class)
public final class RedkitGatewayMvcAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedkitRateLimitFilterFunctions.FilterSupplier redkitRateLimitFilterFunctionsSupplier() {
		return new RedkitRateLimitFilterFunctions.FilterSupplier();
	}

}
