package io.github.redkit.integration.autoconfigure;

import java.time.Duration;

import io.github.redkit.autoconfigure.DurationChecks;
import io.github.redkit.integration.RedkitLockRegistry;
import io.github.redkit.lock.DistributedLocks;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Spring Integration support: a {@link RedkitLockRegistry} as the application's
 * {@link LockRegistry} when Spring Integration is on the classpath and Redkit's
 * {@link DistributedLocks} are available.
 */
@AutoConfiguration(afterName = "io.github.redkit.autoconfigure.lock.LockAutoConfiguration")
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnBean(DistributedLocks.class)
@ConditionalOnBooleanProperty(name = "redkit.integration.lock-registry.enabled", matchIfMissing = true)
@EnableConfigurationProperties(IntegrationLockRegistryProperties.class)
public final class IntegrationLockRegistryAutoConfiguration {

	private static final String PREFIX = "redkit.integration.lock-registry";

	@Bean
	@ConditionalOnMissingBean(LockRegistry.class)
	RedkitLockRegistry redkitLockRegistry(DistributedLocks locks, IntegrationLockRegistryProperties properties) {
		if (properties.getName() == null || properties.getName().isBlank()) {
			throw new IllegalArgumentException(PREFIX + ".name must not be empty");
		}
		if (properties.getCacheCapacity() < 1) {
			throw new IllegalArgumentException(
					PREFIX + ".cache-capacity must be > 0 (was " + properties.getCacheCapacity() + ")");
		}
		Duration lease = properties.getLease();
		if (lease != null) {
			DurationChecks.positive(lease, PREFIX + ".lease");
		}
		RedkitLockRegistry registry = new RedkitLockRegistry(locks, properties.getName(), lease);
		registry.setCacheCapacity(properties.getCacheCapacity());
		return registry;
	}

}
