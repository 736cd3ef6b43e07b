package io.github.redkit.docs;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The route limit of {@code docs/rate-limits.md}, on WebFlux: no annotation, the route's
 * requests take permits of {@code api} per API key.
 */
@SpringBootTest(classes = RateLimitRoutesDocsTests.Application.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.config.location=classpath:docs/rate-limit-routes.yml",
				"spring.main.web-application-type=reactive" })
@RedkitTest
class RateLimitRoutesDocsTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	int port;

	@Test
	void theHundredAndFirstRequestOfAKeyInAMinuteIsRefused() throws Exception {
		for (int i = 0; i < 100; i++) {
			HttpResponse<String> allowed = get("key-1");
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(allowed.headers().firstValue("RateLimit")).isPresent();
		}
		HttpResponse<String> refused = get("key-1");
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).isPresent();
		assertThat(get("key-2").statusCode()).as("another key has permits of its own").isEqualTo(200);
	}

	@Test
	void onlyFailedLogInsCountAgainstTheLogInRoute() throws Exception {
		for (int i = 0; i < 10; i++) {
			assertThat(login("right").statusCode()).isEqualTo(200);
		}
		for (int i = 0; i < 5; i++) {
			assertThat(login("wrong").statusCode()).isEqualTo(401);
		}
		assertThat(login("right").statusCode()).as("five failures spend the limit of the address").isEqualTo(429);
	}

	private HttpResponse<String> login(String password) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + "/login"))
			.POST(HttpRequest.BodyPublishers.ofString(password))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> get(String apiKey) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + "/api/hello"))
			.header("X-Api-Key", apiKey)
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(HelloController.class)
	static class Application {

	}

	@RestController
	static class HelloController {

		@GetMapping("/api/hello")
		Mono<String> hello() {
			return Mono.just("hello");
		}

		@PostMapping("/login")
		Mono<ResponseEntity<String>> login(@RequestBody String password) {
			return Mono.just(password.equals("right") ? ResponseEntity.ok("welcome")
					: ResponseEntity.status(HttpStatus.UNAUTHORIZED).body("wrong password"));
		}

	}

}
