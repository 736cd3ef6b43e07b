package io.github.redkit.idempotency;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.idempotency.IdempotencyAutoConfiguration;
import io.github.redkit.idempotency.internal.IdempotentStepAdvisor;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The thread that renews the leases of running steps ends with the application context,
 * and a step claimed after it ended is given back and refused rather than run with a
 * lease nobody renews.
 */
class IdempotentStepRenewerShutdownTests {

	private static final String RENEWER = "redkit-step-leases";

	private final ApplicationContextRunner contexts = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				IdempotencyAutoConfiguration.class, AopAutoConfiguration.class))
		.withUserConfiguration(HandlersConfiguration.class)
		.withPropertyValues(RedisServers.standalone().springProperties())
		// a first call connects: a loaded machine may take longer than the default
		// timeout
		.withPropertyValues("redkit.key-prefix=redkit-test-renewer", "redkit.idempotency.timeout=10s");

	@Test
	void theRenewersThreadEndsWithTheContext() {
		Set<Thread> before = renewerThreads();
		Set<Thread> started = new HashSet<>();
		this.contexts.run((context) -> {
			context.getBean(Handlers.class).ping("renewer:" + UUID.randomUUID());
			started.addAll(renewerThreads());
			started.removeAll(before);
			assertThat(started).as("the renewer's thread, started by a running step").isNotEmpty();
		});
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(started).as("the renewer's threads once the context closed")
				.noneMatch(Thread::isAlive));
	}

	@Test
	void aStepClaimedAfterTheRenewerStoppedIsGivenBackAndRefused() {
		this.contexts.run((context) -> {
			context.getBean(IdempotentStepAdvisor.class).destroy();
			Handlers handlers = context.getBean(Handlers.class);
			String key = "renewer:" + UUID.randomUUID();
			assertThatIllegalStateException().isThrownBy(() -> handlers.ping(key))
				.withMessageContaining("'ping'")
				.withMessageContaining("the claim was given back");
			assertThat(handlers.runs()).as("the method did not run").hasValue(0);
			assertThat(context.getBean(IdempotentSteps.class).claim(key, "ping", null, null))
				.as("the step, given back, can be claimed at once")
				.isEqualTo(StepOutcome.CLAIMED);
		});
	}

	private static Set<Thread> renewerThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().startsWith(RENEWER))
			.collect(Collectors.toSet());
	}

	@Configuration(proxyBeanMethods = false)
	static class HandlersConfiguration {

		@Bean
		Handlers handlers() {
			return new Handlers();
		}

	}

}
