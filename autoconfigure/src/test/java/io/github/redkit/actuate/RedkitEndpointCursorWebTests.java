package io.github.redkit.actuate;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A listing's cursor over HTTP, on one server and on a cluster (whose cursors name a
 * node): one the endpoint did not hand out is answered 400 with the reason, never 500.
 * The cursor is read before any command is sent, so the other server families, which
 * answer the first page's {@code SCAN} as the paging suites check, cannot fail here.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.NODES)
class RedkitEndpointCursorWebTests {

	@Parameter
	RedisTopology topology;

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void aMalformedCursorIsABadRequestWithItsReason() throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
			.web(WebApplicationType.SERVLET)
			.properties(this.topology.server().springProperties())
			.properties("server.port=0", "redkit.key-prefix=redkit-test-" + UUID.randomUUID(),
					"management.endpoints.web.exposure.include=redkit", "spring.web.error.include-message=always")
			.run()) {
			String base = "http://localhost:" + ((WebServerApplicationContext) context).getWebServer().getPort()
					+ "/actuator/redkit/";
			for (String section : new String[] { "locks", "control" }) {
				for (String cursor : new String[] { "x:0", "-1:0", "0:x", "1.***", "abc", "99999999:0",
						"99999999999999999999999", "0:18446744073709551616", "0~0", "0~x", "0~", "5~1234567" }) {
					HttpResponse<String> page = this.http.send(HttpRequest
						.newBuilder(URI
							.create(base + section + "?cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8)))
						.GET()
						.build(), HttpResponse.BodyHandlers.ofString());
					assertThat(page.statusCode()).as("%s?cursor=%s: %s", section, cursor, page.body()).isEqualTo(400);
					assertThat(page.body()).contains("Malformed cursor");
				}
				HttpResponse<String> first = this.http.send(
						HttpRequest.newBuilder(URI.create(base + section + "?cursor=0")).GET().build(),
						HttpResponse.BodyHandlers.ofString());
				assertThat(first.statusCode()).isEqualTo(200);
			}
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

	}

}
