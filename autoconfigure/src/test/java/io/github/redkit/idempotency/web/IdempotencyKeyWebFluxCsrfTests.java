package io.github.redkit.idempotency.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.http.MediaType;
import org.springframework.security.web.server.csrf.CookieServerCsrfTokenRepository;
import org.springframework.security.web.server.csrf.CsrfWebFilter;
import org.springframework.security.web.server.csrf.ServerCsrfTokenRequestAttributeHandler;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code Idempotency-Key} on a real Netty server behind Spring Security's CSRF
 * filter, which reads a form's data before the idempotency filter runs.
 */
@SpringBootTest(classes = IdempotencyKeyWebFluxCsrfTests.Application.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive", "redkit.idempotency.http.routes[0].path=/**",
				// the callers are anonymous: scoped by their address (refused with 403 by
				// default)
				"redkit.idempotency.http.anonymous=client-address" })
class IdempotencyKeyWebFluxCsrfTests {

	private static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	@LocalServerPort
	int port;

	@Autowired
	Orders orders;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("redkit.key-prefix", () -> "redkit-test-" + UUID.randomUUID());
		for (String property : RedisServers.standalone().springProperties()) {
			String[] pair = property.split("=", 2);
			registry.add(pair[0], () -> pair[1]);
		}
	}

	@Test
	void aFormTheCsrfFilterReadIsBoundAndAnotherFormWithTheKeyIs422() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first = send(key, "item=book&quantity=2");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.body()).isEqualTo("book x 2");
		HttpResponse<String> retry = send(key, "item=book&quantity=2");
		assertThat(retry.body()).isEqualTo("book x 2");
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(send(key, "item=book&quantity=3").statusCode()).isEqualTo(422);
		assertThat(this.orders.runs.get()).isEqualTo(1);
	}

	private HttpResponse<String> send(String key, String form) throws Exception {
		String token = "token-" + key;
		return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/orders"))
			.timeout(Duration.ofSeconds(30))
			.header("Idempotency-Key", key)
			.header("Cookie", "XSRF-TOKEN=" + token)
			.header("X-XSRF-TOKEN", token)
			.header("Content-Type", MediaType.APPLICATION_FORM_URLENCODED_VALUE)
			.POST(HttpRequest.BodyPublishers.ofString(form))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.idempotency.web.none")
	@Import(Orders.class)
	static class Application {

		@Bean
		WebFilter csrf() {
			CsrfWebFilter csrf = new CsrfWebFilter();
			csrf.setCsrfTokenRepository(CookieServerCsrfTokenRepository.withHttpOnlyFalse());
			csrf.setRequestHandler(new ServerCsrfTokenRequestAttributeHandler());
			return new Csrf(csrf);
		}

	}

	/**
	 * Spring Security's CSRF filter where its filter chain runs it ({@code -100}).
	 */
	record Csrf(CsrfWebFilter csrf) implements WebFilter, Ordered {

		@Override
		public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
			return this.csrf.filter(exchange, chain);
		}

		@Override
		public int getOrder() {
			return -100;
		}

	}

	record Order(String item, int quantity) {

	}

	@RestController
	static class Orders {

		final AtomicInteger runs = new AtomicInteger();

		@PostMapping("/orders")
		Mono<String> order(@ModelAttribute Order order) {
			this.runs.incrementAndGet();
			return Mono.just(order.item() + " x " + order.quantity());
		}

	}

}
