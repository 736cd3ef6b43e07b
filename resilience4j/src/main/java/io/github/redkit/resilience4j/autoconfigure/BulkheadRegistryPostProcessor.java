package io.github.redkit.resilience4j.autoconfigure;

import java.util.Map;

import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.resilience4j.RedkitBulkhead;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Puts a {@link RedkitBulkhead} in Resilience4j's {@link BulkheadRegistry} for every
 * instance named under {@code redkit.resilience4j.bulkheads}, as soon as the registry is
 * made: before any bean (the {@code @Bulkhead} aspect included) is given the registry.
 * Each keeps the instance's configuration (its wait) and tags; the registry's
 * {@code replace} tells Resilience4j's event consumers and meters.
 */
class BulkheadRegistryPostProcessor implements BeanPostProcessor {

	static final String PREFIX = "redkit.resilience4j.bulkheads";

	private final Map<String, Resilience4jProperties.Instance> instances;

	private final ObjectProvider<ConcurrencyLimiter> limiter;

	BulkheadRegistryPostProcessor(Map<String, Resilience4jProperties.Instance> instances,
			ObjectProvider<ConcurrencyLimiter> limiter) {
		this.instances = instances;
		this.limiter = limiter;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof BulkheadRegistry registry && !this.instances.isEmpty()) {
			ConcurrencyLimiter redkit = this.limiter.getIfAvailable();
			if (redkit == null) {
				throw new IllegalStateException(PREFIX + " names Resilience4j bulkheads " + this.instances.keySet()
						+ ", but Redkit's concurrency limits are off (redkit.concurrency-limit.enabled=false, or no Redis)");
			}
			this.instances.forEach((name, properties) -> {
				InstanceBinding binding = InstanceBinding.of(PREFIX, name, properties);
				Bulkhead current = registry.bulkhead(name);
				if (!(current instanceof RedkitBulkhead)) {
					registry.replace(name, create(binding, name, current, redkit));
				}
			});
		}
		return bean;
	}

	private static RedkitBulkhead create(InstanceBinding binding, String name, Bulkhead current,
			ConcurrencyLimiter redkit) {
		try {
			return new RedkitBulkhead(name, current.getBulkheadConfig(), current.getTags(), redkit, binding.limit(),
					binding.key());
		}
		catch (IllegalArgumentException ex) {
			throw binding.invalid(ex);
		}
	}

}
