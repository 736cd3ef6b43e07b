package io.github.redkit.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.idempotency.IdempotencyAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.idempotency.IdempotentStep;
import io.github.redkit.lock.DistributedLock;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@code @DistributedLock} or {@code @IdempotentStep} on a deferred result they cannot
 * act around (a bare {@code Future}, which cannot tell when it is done without a thread
 * waiting for it) is a clear error, not a lock given back before the result exists or a
 * step that records a future. A {@code Mono}, a {@code Flux} or a
 * {@code CompletableFuture} is acted around (see the {@code Reactive*Tests}).
 */
class DeferredResultsRefusedTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedkitAutoConfiguration.class, LockAutoConfiguration.class, IdempotencyAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withUserConfiguration(Services.class);

	@Test
	void aLockAroundAPlainFutureIsRefusedNamingTheMethod() {
		this.runner
			.run((context) -> assertThatIllegalStateException().isThrownBy(() -> context.getBean(Jobs.class).export())
				.withMessageContaining("@DistributedLock on Jobs.export(): Future results are not supported"));
	}

	@Test
	void aStepReturningAPlainFutureIsRefusedNamingTheMethod() {
		this.runner.run((context) -> assertThatIllegalStateException()
			.isThrownBy(() -> context.getBean(Jobs.class).charge("order-1"))
			.withMessageContaining("@IdempotentStep on Jobs.charge()")
			.withMessageContaining("not supported"));
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

	}

	static class Jobs {

		@DistributedLock(key = "'export'")
		Future<String> export() {
			return CompletableFuture.completedFuture("exported");
		}

		@IdempotentStep(operation = "#order", step = "charge")
		Future<String> charge(String order) {
			return CompletableFuture.completedFuture("charged");
		}

	}

}
