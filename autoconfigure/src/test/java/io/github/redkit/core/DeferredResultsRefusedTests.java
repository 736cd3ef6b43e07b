package io.github.redkit.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.idempotency.IdempotencyAutoConfiguration;
import io.github.redkit.autoconfigure.lock.LockAutoConfiguration;
import io.github.redkit.idempotency.IdempotentStep;
import io.github.redkit.lock.DistributedLock;
import io.github.redkit.test.RedisServers;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Until locks act around a deferred result, a {@code @DistributedLock} on a method
 * returning one is a clear error, not a lock given back before the result exists; so is
 * an {@code @IdempotentStep} on a result it cannot act around (a bare {@code Future}).
 */
class DeferredResultsRefusedTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedkitAutoConfiguration.class, LockAutoConfiguration.class, IdempotencyAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withUserConfiguration(Services.class);

	@Test
	void aLockAroundAMonoOrAFutureIsRefusedNamingTheMethod() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			assertThatIllegalStateException().isThrownBy(jobs::settle)
				.withMessageContaining("@DistributedLock on Jobs.settle()")
				.withMessageContaining("not supported yet");
			assertThatIllegalStateException().isThrownBy(jobs::export)
				.withMessageContaining("@DistributedLock on Jobs.export()");
		});
	}

	@Test
	void aStepReturningAPlainFutureIsRefusedNamingTheMethod() {
		// a Mono, a Flux or a CompletableFuture is a reactive step (see
		// ReactiveIdempotentStepTests); a bare Future cannot be acted around
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

		@DistributedLock(key = "'settle'")
		Mono<String> settle() {
			return Mono.just("settled");
		}

		@DistributedLock(key = "'export'")
		CompletableFuture<String> export() {
			return CompletableFuture.completedFuture("exported");
		}

		@IdempotentStep(operation = "#order", step = "charge")
		Future<String> charge(String order) {
			return CompletableFuture.completedFuture("charged");
		}

	}

}
