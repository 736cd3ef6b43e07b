package io.github.redkit.integration;

import java.time.Duration;
import java.util.UUID;

import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spring Integration snippets of {@code docs/locks.md}: its configuration and a
 * leader initiator on the registry.
 */
@SpringBootTest(classes = IntegrationDocsTests.Application.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = "spring.config.location=classpath:docs/integration.yml")
class IntegrationDocsTests {

	@Autowired
	LockRegistry<?> registry;

	@Autowired
	LockRegistryLeaderInitiator leaderInitiator;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		for (String property : RedisServers.standalone().springProperties()) {
			int equals = property.indexOf('=');
			registry.add(property.substring(0, equals), () -> property.substring(equals + 1));
		}
		registry.add("redkit.key-prefix", () -> "integration-docs-" + UUID.randomUUID());
	}

	@Test
	void theOnlyInstanceBecomesTheLeaderOnRedkitLocks() {
		assertThat(this.registry).isInstanceOf(RedkitLockRegistry.class);
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!this.leaderInitiator.getContext().isLeader() && System.nanoTime() < deadline) {
			Thread.onSpinWait();
		}
		assertThat(this.leaderInitiator.getContext().isLeader()).isTrue();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

		// tag::leader[]
		@Bean
		LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> locks) {
			// one leader per role across instances
			return new LockRegistryLeaderInitiator(locks);
		}
		// end::leader[]

	}

}
