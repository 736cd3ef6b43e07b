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

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A {@code @DistributedLock} or {@code @IdempotentStep} on a deferred result they cannot
 * act around (a bare {@code Future}, which cannot tell when it is done without a thread
 * waiting for it) fails the application's start naming the method, not a lock given back
 * before the result exists or a step that records a future. A {@code Mono}, a
 * {@code Flux} or a {@code CompletableFuture} is acted around (see the
 * {@code Reactive*Tests}).
 */
class DeferredResultsRefusedTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedkitAutoConfiguration.class, LockAutoConfiguration.class, IdempotencyAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties());

	@Test
	void aLockAroundAPlainFutureIsRefusedNamingTheMethod() {
		this.runner.withBean(Jobs.class, Jobs::new)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("@DistributedLock on Jobs.export(): Future results are not supported"));
	}

	@Test
	void aStepReturningAPlainFutureIsRefusedNamingTheMethod() {
		this.runner.withBean(Steps.class, Steps::new)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("@IdempotentStep on Steps.charge()")
				.hasMessageContaining("not supported"));
	}

	static class Jobs {

		@DistributedLock(key = "'export'")
		Future<String> export() {
			return CompletableFuture.completedFuture("exported");
		}

	}

	static class Steps {

		@IdempotentStep(operation = "#order", step = "charge")
		Future<String> charge(String order) {
			return CompletableFuture.completedFuture("charged");
		}

	}

}
