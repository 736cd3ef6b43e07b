package io.github.redkit.docs;

import io.github.redkit.doctor.ServerRiskException;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The server doctor's configuration of {@code docs/operations.md}: with
 * {@code on-risk: fail} an application does not start on a Redis without persistence, and
 * does on one with an append-only file.
 */
class DoctorDocsTests {

	@Test
	void failsOnARiskAndStartsOnAServerThatKeepsWhatItNeeds(@PrivateRedis(process = true) RedisServer volatileServer,
			@PrivateRedis(arguments = { "--appendonly", "yes" }) RedisServer durable) {
		assertThatExceptionOfType(ServerRiskException.class).isThrownBy(() -> start(volatileServer).close())
			.withMessageContaining("persistence");
		try (ConfigurableApplicationContext context = start(durable)) {
			assertThat(context.isActive()).isTrue();
		}
	}

	private static ConfigurableApplicationContext start(RedisServer redis) {
		return new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
			.properties("spring.config.location=classpath:docs/doctor.yml")
			.properties(redis.springProperties())
			.run();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
