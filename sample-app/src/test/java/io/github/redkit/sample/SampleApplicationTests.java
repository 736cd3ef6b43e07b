package io.github.redkit.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

class SampleApplicationTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void healthShowsRedisUpOnTheConfiguredRedis() throws Exception {
		String[] redis = RedisServers.standalone().springProperties();
		try (ConfigurableApplicationContext context = SpringApplication.run(SampleApplication.class, "--server.port=0",
				"--" + redis[0], "--" + redis[1])) {
			String health = get(context, "/actuator/health");
			assertThat(health).contains("\"status\":\"UP\"").contains("\"redis\"");
			assertThat(get(context, "/actuator/redkit")).contains("\"capabilities\"").contains("\"posts\"");
		}
	}

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
