package io.github.redkit.resilience4j;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Why this module is tested with {@code resilience4j-spring-boot4}: Resilience4j's Boot 3
 * starter refuses to start in a Boot 4 application (its first auto-configuration checks
 * the Boot version and fails, naming the Boot 4 starter). The starter's jar is copied
 * beside the class path by the build.
 */
class SpringBoot3StarterTests {

	private static final Path STARTER = Path.of("target", "resilience4j-spring-boot3", "resilience4j-spring-boot3.jar");

	@Test
	void resilience4jsBoot3StarterDoesNotStartOnBoot4() throws Exception {
		assertThat(STARTER).as("copied by the build").satisfies((jar) -> assertThat(Files.isRegularFile(jar)).isTrue());
		try (URLClassLoader loader = new URLClassLoader(new URL[] { STARTER.toUri().toURL() },
				getClass().getClassLoader())) {
			Class<?> verifier = loader.loadClass(
					"io.github.resilience4j.springboot3.verifier.autoconfigure.SpringBoot3VerifierAutoConfiguration");
			new ApplicationContextRunner().withClassLoader(loader)
				.withUserConfiguration(verifier)
				.run((context) -> assertThat(context).getFailure()
					.rootCause()
					.hasMessageContaining("only compatible with Spring Boot 3.x"));
		}
	}

}
