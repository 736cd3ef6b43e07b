package io.github.redkit.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample started as its main method starts it, with no Redis configured (on a
 * configured Redis it is started by the {@code @SampleApplicationTest} classes, whose
 * health {@code SampleOperationsTests} reads).
 */
class SampleApplicationTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void startsAnEmbeddedRedisWhenNoneIsConfigured() throws Exception {
		// nothing under spring.data.redis: localhost:6379 when it answers, else embedded
		try (ConfigurableApplicationContext context = SpringApplication.run(SampleApplication.class,
				"--server.port=0")) {
			assertThat(get(context, "/actuator/health")).contains("\"status\":\"UP\"");
		}
	}

	private String get(ConfigurableApplicationContext context, String path) throws Exception {
		String port = context.getEnvironment().getProperty("local.server.port");
		HttpResponse<String> response = this.http.send(
				HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
		return response.body();
	}

}
