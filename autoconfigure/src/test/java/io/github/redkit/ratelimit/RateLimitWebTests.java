package io.github.redkit.ratelimit;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;

import io.github.redkit.test.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTTP side of rate limiting, in a real Spring MVC application on a real Redis: 429
 * with the standard headers and a ProblemDetail, headers on allowed responses, and 503
 * when Redis is down and the failure mode is deny.
 */
class RateLimitWebTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void refusesWith429RetryAfterRateLimitHeadersAndAProblemDetail() throws Exception {
		String[] redis = RedisServers.standalone().springProperties();
		// a generous timeout: this test is about headers, not about a loaded machine's
		// latency
		try (ConfigurableApplicationContext context = start(redis[0], redis[1], "redkit.rate-limit.timeout=10s")) {
			String user = UUID.randomUUID().toString();
			HttpResponse<String> first = get(context, "/hello?user=" + user);
			assertThat(first.statusCode()).isEqualTo(200);
			assertThat(first.headers().firstValue("RateLimit-Policy"))
				.hasValue("\"api-1s\";q=2;w=1, \"api-1h\";q=100;w=3600");
			// a sliding window forgets a call two periods after its window started: t is
			// 1 or 2
			assertThat(first.headers().firstValue("RateLimit"))
				.hasValueSatisfying((value) -> assertThat(value).matches("\"api-1s\";r=1;t=[12]"));
			assertThat(get(context, "/hello?user=" + user).statusCode()).isEqualTo(200);
			HttpResponse<String> refused = get(context, "/hello?user=" + user);
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(refused.headers().firstValue("Retry-After"))
				.hasValueSatisfying((value) -> assertThat(value).matches("[12]"));
			assertThat(refused.headers().firstValue("RateLimit"))
				.hasValueSatisfying((value) -> assertThat(value).matches("\"api-1s\";r=0;t=[12]"));
			assertThat(refused.headers().firstValue("RateLimit-Policy")).isPresent();
			assertThat(refused.headers().firstValue("Content-Type"))
				.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json"));
			assertThat(refused.body()).contains("\"status\":429")
				.contains("\"title\":\"Too Many Requests\"")
				.contains("\"limit\":\"api\"");
			assertThat(get(context, "/hello?user=other-" + user).statusCode()).isEqualTo(200);
		}
	}

	@Test
	void allowedResponsesCanGoWithoutHeaders() throws Exception {
		String[] redis = RedisServers.standalone().springProperties();
		try (ConfigurableApplicationContext context = start(redis[0], redis[1],
				"redkit.rate-limit.response-headers=false")) {
			HttpResponse<String> response = get(context, "/hello?user=" + UUID.randomUUID());
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(response.headers().firstValue("RateLimit")).isEmpty();
		}
	}

	@Test
	void denyModeAnswers503WhenRedisIsUnreachable() throws Exception {
		try (ConfigurableApplicationContext context = start("spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=1", "redkit.rate-limit.failure-mode=deny", "redkit.rate-limit.timeout=200ms")) {
			HttpResponse<String> response = get(context, "/hello?user=u");
			assertThat(response.statusCode()).isEqualTo(503);
			assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
			assertThat(response.body()).contains("\"status\":503");
		}
	}

	private ConfigurableApplicationContext start(String... properties) {
		String[] args = new String[properties.length + 4];
		args[0] = "--server.port=0";
		args[1] = "--redkit.rate-limit.limits.api.windows[0].limit=2";
		args[2] = "--redkit.rate-limit.limits.api.windows[0].period=1s";
		args[3] = "--redkit.rate-limit.limits.api.windows[1].limit=100,--redkit.rate-limit.limits.api.windows[1].period=1h";
		for (int i = 0; i < properties.length; i++) {
			args[4 + i] = "--" + properties[i];
		}
		String[] expanded = String.join(",", args).split(",");
		return SpringApplication.run(WebApplication.class, expanded);
	}

	private HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws Exception {
		String port = context.getEnvironment().getProperty("local.server.port");
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.ratelimit.none")
	@Import(HelloController.class)
	static class WebApplication {

	}

	@RestController
	static class HelloController {

		@GetMapping("/hello")
		@RateLimited(value = "api", key = "'user:' + #user")
		String hello(@RequestParam String user) {
			return "hello " + user;
		}

	}

}
