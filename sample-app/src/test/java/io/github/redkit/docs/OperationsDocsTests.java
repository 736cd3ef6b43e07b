package io.github.redkit.docs;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard configuration of {@code docs/operations.md}: a browser gets the page, any
 * other client the JSON summary.
 */
@SpringBootTest(classes = OperationsDocsTests.Application.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.config.location=classpath:docs/operations.yml")
@RedkitTest
class OperationsDocsTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	int port;

	@Test
	void aBrowserGetsTheDashboardAndOtherClientsTheJson() throws Exception {
		HttpResponse<String> page = get("text/html");
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.headers().firstValue("Content-Type"))
			.hasValueSatisfying((type) -> assertThat(type).startsWith("text/html"));
		assertThat(page.body()).contains("name=\"redkit-poll-millis\" content=\"2000\"");
		HttpResponse<String> json = get("application/json");
		assertThat(json.statusCode()).isEqualTo(200);
		assertThat(json.body()).contains("\"access\":\"read-only\"");
	}

	private HttpResponse<String> get(String accept) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + "/actuator/redkit"))
			.header("Accept", accept)
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
