package io.github.redkit.autoconfigure.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.function.Supplier;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.StartFailures;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.lock.DistributedLock;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.internal.LockAdvisor;
import io.github.redkit.lock.internal.RedisDistributedLocks;
import io.github.redkit.lock.web.LockExceptionHandler;
import io.github.redkit.testsupport.RedisServers;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class LockAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				LockAutoConfiguration.class, AopAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties());

	@Test
	void providesTheLocksAndTheAdvisorWithDefaults() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(RedisDistributedLocks.class)
				.hasSingleBean(LockAdvisor.class)
				.doesNotHaveBean(LockExceptionHandler.class);
			assertThat(context.getBean(LockAdvisor.class).getOrder()).isEqualTo(LockAdvisor.DEFAULT_ORDER);
			LockProperties properties = context.getBean(LockProperties.class);
			assertThat(properties.getWaitTime()).isZero();
			assertThat(properties.getLeaseTime()).isEqualTo(Duration.ofSeconds(30));
			try (LockHandle handle = context.getBean(DistributedLocks.class)
				.tryLock("autoconfig", Duration.ZERO, Duration.ofSeconds(5))
				.orElseThrow()) {
				assertThat(handle.isHeld()).isTrue();
			}
		});
	}

	@Test
	void aBadAnnotationFailsTheStartNamingTheMethod() {
		StartFailures.assertFailsToStart(this.runner, BlankKey.class, "BlankKey.locked()", "key must not be empty");
		StartFailures.assertFailsToStart(this.runner, MalformedKey.class, "MalformedKey.locked()",
				"not a valid SpEL expression");
		StartFailures.assertFailsToStart(this.runner, NegativeWait.class, "NegativeWait.locked()", "waitTime");
		StartFailures.assertFailsToStart(this.runner, ZeroLease.class, "ZeroLease.locked()", "at least 1ms");
		StartFailures.assertFailsToStart(this.runner, BareFuture.class, "BareFuture.locked()", "not supported");
	}

	@Test
	void usesMicrometerWhenARegistryIsPresent() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.run((context) -> assertThat(context).getBean(RedkitMetrics.class)
				.isInstanceOf(MicrometerRedkitMetrics.class));
	}

	@Test
	void theOrderIsConfigurable() {
		this.runner.withPropertyValues("redkit.lock.order=42")
			.run((context) -> assertThat(context.getBean(LockAdvisor.class).getOrder()).isEqualTo(42));
	}

	@Test
	void canBeDisabled() {
		this.runner.withPropertyValues("redkit.lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(DistributedLocks.class)
				.doesNotHaveBean(LockAdvisor.class));
	}

	@Test
	void theLocksCanBeReplaced() {
		this.runner.withUserConfiguration(CustomLocks.class).run((context) -> {
			assertThat(context).hasSingleBean(DistributedLocks.class).doesNotHaveBean(RedisDistributedLocks.class);
			assertThat(context).hasSingleBean(LockAdvisor.class);
		});
	}

	@Test
	void badPropertiesFailStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.lock.lease-time=0s")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.lock.lease-time"));
		this.runner.withPropertyValues("redkit.lock.wait-time=-1s")
			.run((context) -> assertThat(context.getStartupFailure()).hasStackTraceContaining("redkit.lock.wait-time"));
		this.runner.withPropertyValues("redkit.lock.redis-timeout=0ms")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.lock.redis-timeout"));
	}

	@Test
	void mapsLockFailuresInServletApplications() {
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
					LockAutoConfiguration.class))
			.withPropertyValues(RedisServers.standalone().springProperties())
			.run((context) -> assertThat(context).hasSingleBean(LockExceptionHandler.class));
	}

	static class BlankKey {

		@DistributedLock(key = " ")
		void locked() {
		}

	}

	static class MalformedKey {

		@DistributedLock(key = "'billing:' +")
		void locked() {
		}

	}

	static class NegativeWait {

		@DistributedLock(key = "'a'", waitTime = "-1s")
		void locked() {
		}

	}

	static class ZeroLease {

		@DistributedLock(key = "'a'", leaseTime = "0s")
		void locked() {
		}

	}

	static class BareFuture {

		@DistributedLock(key = "'a'")
		Future<String> locked() {
			return new FutureTask<>(() -> "never");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomLocks {

		@Bean
		DistributedLocks customLocks() {
			return new DistributedLocks() {

				@Override
				public Optional<LockHandle> tryLock(String name, String key, Duration wait, Duration lease) {
					return Optional.empty();
				}

				@Override
				public <T> T withLock(String key, Duration wait, Duration lease, Supplier<T> action) {
					return action.get();
				}

			};
		}

	}

}
