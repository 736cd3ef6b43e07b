package io.github.redkit.actuate;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard over HTTP: {@code GET /actuator/redkit} answers the page to a browser
 * ({@code Accept: text/html}) and the JSON summary to everyone else, only when enabled
 * and only where the endpoint itself is served.
 */
class RedkitDashboardWebTests {

	private static final String BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void aBrowserGetsThePageAndEveryoneElseTheSummary() throws Exception {
		try (ConfigurableApplicationContext context = start("redkit.dashboard.enabled=true")) {
			String base = base(context, "/actuator/redkit");
			HttpResponse<String> page = get(base, BROWSER);
			assertThat(page.statusCode()).isEqualTo(200);
			assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(
					(type) -> assertThat(type).startsWith("text/html").containsIgnoringCase("charset=utf-8"));
			assertThat(page.body()).contains("<title>Redkit dashboard</title>")
				.doesNotContain("@poll-millis@")
				.as("no CDN, no external script")
				.doesNotContain("src=\"http")
				.doesNotContain("<script src");
			for (String accept : new String[] { null, "*/*", "application/json" }) {
				HttpResponse<String> summary = get(base, accept);
				assertThat(summary.statusCode()).as(accept).isEqualTo(200);
				assertThat(summary.body()).as(accept).startsWith("{").contains("\"capabilities\"");
			}
			assertThat(get(base + "/queues", BROWSER).body()).as("the other operations stay JSON").contains("\"jobs\"");
		}
	}

	@Test
	void notServedWithoutTheProperty() throws Exception {
		try (ConfigurableApplicationContext context = start()) {
			String base = base(context, "/actuator/redkit");
			assertThat(get(base, "text/html").statusCode()).isEqualTo(406);
			assertThat(get(base, BROWSER).body()).startsWith("{").contains("\"capabilities\"");
		}
	}

	@Test
	void notServedWhereTheEndpointIsNot() throws Exception {
		try (ConfigurableApplicationContext context = start("redkit.dashboard.enabled=true",
				"management.endpoints.web.exposure.include=health")) {
			assertThat(get(base(context, "/actuator/redkit"), BROWSER).statusCode()).isEqualTo(404);
		}
		try (ConfigurableApplicationContext context = start("redkit.dashboard.enabled=true",
				"management.endpoint.redkit.access=none")) {
			assertThat(get(base(context, "/actuator/redkit"), BROWSER).statusCode()).isEqualTo(404);
		}
	}

	@Test
	void followsACustomBasePath() throws Exception {
		try (ConfigurableApplicationContext context = start("redkit.dashboard.enabled=true",
				"management.endpoints.web.base-path=/ops", "management.endpoint.redkit.access=unrestricted")) {
			HttpResponse<String> page = get(base(context, "/ops/redkit"), BROWSER);
			assertThat(page.statusCode()).isEqualTo(200);
			assertThat(page.body()).contains("<title>Redkit dashboard</title>");
			// the page shows write buttons by the summary's access, read from its own
			// path
			assertThat(get(base(context, "/ops/redkit"), "application/json").body())
				.contains("\"access\":\"unrestricted\"");
		}
	}

	private ConfigurableApplicationContext start(String... properties) {
		List<String> all = new ArrayList<>(List.of(RedisServers.standalone().springProperties()));
		all.addAll(List.of("server.port=0", "redkit.key-prefix=redkit-test-" + UUID.randomUUID(),
				"management.endpoints.web.exposure.include=redkit", "redkit.queue.queues.jobs.max-attempts=1"));
		all.addAll(List.of(properties));
		return new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET)
			.properties(all.toArray(String[]::new))
			.run();
	}

	private static String base(ConfigurableApplicationContext context, String path) {
		return "http://localhost:" + ((WebServerApplicationContext) context).getWebServer().getPort() + path;
	}

	private HttpResponse<String> get(String uri, String accept) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(uri)).GET();
		if (accept != null) {
			request.header("Accept", accept);
		}
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

	}

}
