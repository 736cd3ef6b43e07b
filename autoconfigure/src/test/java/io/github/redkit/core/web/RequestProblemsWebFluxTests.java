package io.github.redkit.core.web;

import java.time.Duration;
import java.util.UUID;

import io.github.redkit.idempotency.IdempotentStep;
import io.github.redkit.lock.DistributedLock;
import io.github.redkit.testsupport.RedisServers;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.hamcrest.Matchers.containsString;

/**
 * A WebFlux application on a real Netty server: a request that cannot give a Redkit
 * annotation its key is a 400 problem detail that says why, and a step whose result is
 * too large to record is a 500 problem detail that names the limit and its property.
 */
class RequestProblemsWebFluxTests {

	@Test
	void aKeyThatEvaluatesToNullIs400AndATooLargeStepResultNamesItsLimit() {
		try (ConfigurableApplicationContext context = start()) {
			WebTestClient client = client(context);
			client.get().uri("/ship?id=1").exchange().expectStatus().isOk();
			client.get()
				.uri("/ship")
				.exchange()
				.expectStatus()
				.isBadRequest()
				.expectHeader()
				.contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
				.expectBody()
				.jsonPath("$.title")
				.isEqualTo("Invalid request key")
				.jsonPath("$.detail")
				.value(containsString("'id' is null"));
			client.get()
				.uri("/lines?order=" + UUID.randomUUID())
				.exchange()
				.expectStatus()
				.isEqualTo(500)
				.expectHeader()
				.contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
				.expectBody()
				.jsonPath("$.title")
				.isEqualTo("Step result too large")
				.jsonPath("$.limit")
				.isEqualTo(2)
				.jsonPath("$.property")
				.isEqualTo("redkit.idempotency.max-flux-elements")
				.jsonPath("$.detail")
				.value(containsString("more than 2 elements"));
		}
	}

	private ConfigurableApplicationContext start() {
		return new SpringApplicationBuilder(WebFluxApplication.class).web(WebApplicationType.REACTIVE)
			.properties("server.port=0", "redkit.key-prefix=rproblems-" + UUID.randomUUID(),
					"redkit.idempotency.max-flux-elements=2")
			.properties(RedisServers.standalone().springProperties())
			.run();
	}

	private static WebTestClient client(ConfigurableApplicationContext context) {
		String port = context.getEnvironment().getProperty("local.server.port");
		return WebTestClient.bindToServer()
			.baseUrl("http://127.0.0.1:" + port)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.core.web.none")
	@Import(Orders.class)
	static class WebFluxApplication {

	}

	@RestController
	static class Orders {

		@GetMapping("/ship")
		@DistributedLock(key = "'order:' + #id")
		Mono<String> ship(@RequestParam(required = false) @Nullable String id) {
			return Mono.just("shipped");
		}

		@GetMapping("/lines")
		@IdempotentStep(operation = "#order", step = "lines")
		Flux<String> lines(@RequestParam String order) {
			return Flux.just("a", "b", "c");
		}

	}

}
