package io.github.redkit.sample.web;

import io.github.redkit.ratelimit.MicrometerRateLimitMetrics;
import io.github.redkit.ratelimit.RateLimitMetrics;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Registers the rate-limit meters. Redkit's RateLimitAutoConfiguration guards them with
 * {@code @ConditionalOnBean(MeterRegistry.class)} but is not ordered after Spring Boot's
 * metrics auto-configuration, so without this bean {@code redkit.ratelimit.*} never shows
 * up. Remove once the starter orders itself after the meter registry.
 */
@Configuration(proxyBeanMethods = false)
class RateLimitMetricsWorkaround {

	@Bean
	RateLimitMetrics redkitRateLimitMetrics(MeterRegistry registry) {
		return new MicrometerRateLimitMetrics(registry);
	}

}
