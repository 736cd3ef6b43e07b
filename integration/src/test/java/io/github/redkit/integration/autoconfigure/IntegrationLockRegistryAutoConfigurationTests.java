package io.github.redkit.integration.autoconfigure;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.github.redkit.testsupport.LockRecords;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.integration.RedkitLockRegistry;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

class IntegrationLockRegistryAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				LockAutoConfiguration.class, IntegrationLockRegistryAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties());

	@Test
	void isListedAsAnAutoConfiguration() {
		assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).getCandidates())
			.contains(IntegrationLockRegistryAutoConfiguration.class.getName());
	}

	@Test
	void providesARegistryWhoseLocksAreRedkitLocksRenewedWhileHeld() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(RedkitLockRegistry.class);
			IntegrationLockRegistryProperties properties = context.getBean(IntegrationLockRegistryProperties.class);
			assertThat(properties.getName()).isEqualTo("integration");
			assertThat(properties.getLease()).isNull();
			assertThat(properties.getCacheCapacity()).isEqualTo(256);
			Lock lock = context.getBean(LockRegistry.class).obtain("autoconfig");
			assertThat(lock.tryLock()).isTrue();
			String key = new RedisKeyspace("redkit").key("lock").tag("integration:autoconfig").build();
			StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
			// redkit.lock.lease-time, renewed while held
			assertThat(LockRecords.remainingLeaseMillis(redis, key) / 1000).isBetween(20L, 30L);
			lock.unlock();
			assertThat(LockRecords.held(redis, key)).isFalse();
		});
	}

	@Test
	void theNameAndTheLeaseAreConfigurable() {
		this.runner
			.withPropertyValues("redkit.integration.lock-registry.name=orders",
					"redkit.integration.lock-registry.lease=5m")
			.run((context) -> {
				Lock lock = context.getBean(LockRegistry.class).obtain("autoconfig");
				assertThat(lock.tryLock()).isTrue();
				String key = new RedisKeyspace("redkit").key("lock").tag("orders:autoconfig").build();
				assertThat(LockRecords.remainingLeaseMillis(context.getBean(StringRedisTemplate.class), key) / 1000)
					.isBetween(200L, 300L);
				lock.unlock();
			});
	}

	@Test
	void backsOffWithoutSpringIntegration() {
		this.runner.withClassLoader(new FilteredClassLoader(LockRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedkitLockRegistry.class));
	}

	@Test
	void backsOffWithoutRedkitLocks() {
		this.runner.withPropertyValues("redkit.lock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedkitLockRegistry.class));
	}

	@Test
	void canBeDisabled() {
		this.runner.withPropertyValues("redkit.integration.lock-registry.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LockRegistry.class));
	}

	@Test
	void backsOffWhenTheApplicationHasALockRegistry() {
		this.runner.withBean("userLockRegistry", LockRegistry.class, DefaultLockRegistry::new)
			.run((context) -> assertThat(context).hasSingleBean(LockRegistry.class)
				.doesNotHaveBean(RedkitLockRegistry.class));
	}

	@Test
	void badPropertiesFailStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.integration.lock-registry.lease=0s")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.integration.lock-registry.lease"));
		this.runner.withPropertyValues("redkit.integration.lock-registry.name= ")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.integration.lock-registry.name"));
		this.runner.withPropertyValues("redkit.integration.lock-registry.cache-capacity=0")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.integration.lock-registry.cache-capacity"));
	}

}
