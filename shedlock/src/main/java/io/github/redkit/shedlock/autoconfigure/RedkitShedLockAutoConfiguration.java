package io.github.redkit.shedlock.autoconfigure;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.shedlock.RedkitLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * ShedLock on Redkit: a {@link RedkitLockProvider} when ShedLock is on the classpath, a
 * {@link DistributedLocks} bean exists and the application declares no
 * {@link LockProvider} of its own.
 */
@AutoConfiguration(afterName = "io.github.redkit.autoconfigure.lock.LockAutoConfiguration")
@ConditionalOnClass(LockProvider.class)
@ConditionalOnBean(DistributedLocks.class)
@ConditionalOnBooleanProperty(name = "redkit.shedlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedkitShedLockProperties.class)
public final class RedkitShedLockAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockProvider.class)
	RedkitLockProvider redkitShedLockProvider(DistributedLocks locks, RedkitShedLockProperties properties) {
		return new RedkitLockProvider(locks, properties.getName());
	}

}
