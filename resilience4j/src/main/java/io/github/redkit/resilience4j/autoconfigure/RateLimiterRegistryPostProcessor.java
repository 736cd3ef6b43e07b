package io.github.redkit.resilience4j.autoconfigure;

import java.util.Map;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.resilience4j.PermitsLeft;
import io.github.redkit.resilience4j.RedkitRateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Puts a {@link RedkitRateLimiter} in Resilience4j's {@link RateLimiterRegistry} for
 * every instance named under {@code redkit.resilience4j.rate-limiters}, as soon as the
 * registry is made: before any bean (the {@code @RateLimiter} aspect included) is given
 * the registry. Each keeps the instance's configuration (its timeout) and tags; the
 * registry's {@code replace} tells Resilience4j's event consumers and meters.
 */
class RateLimiterRegistryPostProcessor implements BeanPostProcessor {

	static final String PREFIX = "redkit.resilience4j.rate-limiters";

	private final Map<String, Resilience4jProperties.Instance> instances;

	private final ObjectProvider<io.github.redkit.ratelimit.RateLimiter> limiter;

	private final ObjectProvider<PermitsLeft> permitsLeft;

	RateLimiterRegistryPostProcessor(Map<String, Resilience4jProperties.Instance> instances,
			ObjectProvider<io.github.redkit.ratelimit.RateLimiter> limiter, ObjectProvider<PermitsLeft> permitsLeft) {
		this.instances = instances;
		this.limiter = limiter;
		this.permitsLeft = permitsLeft;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof RateLimiterRegistry registry && !this.instances.isEmpty()) {
			io.github.redkit.ratelimit.RateLimiter redkit = this.limiter.getIfAvailable();
			if (redkit == null) {
				throw new IllegalStateException(PREFIX + " names Resilience4j rate limiters " + this.instances.keySet()
						+ ", but Redkit's rate limits are off (redkit.rate-limit.enabled=false, or no Redis)");
			}
			PermitsLeft left = this.permitsLeft.getObject();
			this.instances.forEach((name, properties) -> {
				InstanceBinding binding = InstanceBinding.of(PREFIX, name, properties);
				RateLimiter current = registry.rateLimiter(name);
				if (!(current instanceof RedkitRateLimiter)) {
					registry.replace(name, create(binding, name, current, redkit, left));
				}
			});
		}
		return bean;
	}

	private static RedkitRateLimiter create(InstanceBinding binding, String name, RateLimiter current,
			io.github.redkit.ratelimit.RateLimiter redkit, PermitsLeft left) {
		try {
			return new RedkitRateLimiter(name, current.getRateLimiterConfig(), current.getTags(), redkit,
					binding.limit(), binding.key(), left);
		}
		catch (IllegalArgumentException ex) {
			throw binding.invalid(ex);
		}
	}

}
