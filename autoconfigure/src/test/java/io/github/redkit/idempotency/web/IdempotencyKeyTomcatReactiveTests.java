package io.github.redkit.idempotency.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.tomcat.reactive.TomcatReactiveWebServerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code Idempotency-Key} on WebFlux served by Tomcat, whose request body (unlike
 * Netty's) refuses a second read: what the filter read to fingerprint a request must be
 * all that anything after it reads, an empty form included.
 */
@SpringBootTest(classes = IdempotencyKeyTomcatReactiveTests.Application.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive", "redkit.idempotency.http.routes[0].path=/**" })
class IdempotencyKeyTomcatReactiveTests {

	private static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

	private static final String FORM = MediaType.APPLICATION_FORM_URLENCODED_VALUE;

	@LocalServerPort
	int port;

	@Autowired
	Handlers handlers;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("redkit.key-prefix", () -> "redkit-test-" + UUID.randomUUID());
		for (String property : RedisServers.standalone().springProperties()) {
			String[] pair = property.split("=", 2);
			registry.add(pair[0], () -> pair[1]);
		}
	}

	@BeforeEach
	void reset() {
		this.handlers.runs.set(0);
	}

	@Test
	void anEmptyFormIsAnsweredAndReplayed() throws Exception {
		assertAnsweredOnce("/fields", FORM, HttpRequest.BodyPublishers.noBody(), "{}");
	}

	@Test
	void anEmptyChunkedFormIsAnsweredAndReplayed() throws Exception {
		// no Content-Length: the body is known to be empty only once read
		assertAnsweredOnce("/fields", FORM, chunked(""), "{}");
	}

	@Test
	void anEmptyFormTheHandlerReadsAsItsRawBodyIsAnsweredAndReplayed() throws Exception {
		assertAnsweredOnce("/raw", FORM, HttpRequest.BodyPublishers.noBody(), "");
	}

	@Test
	void anEmptyFormAFilterInFrontReadIsAnsweredAndReplayed() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpRequest request = post("/fields", key, FORM, HttpRequest.BodyPublishers.noBody())
			.header("X-Read-Form", "true")
			.build();
		assertThat(send(request).statusCode()).isEqualTo(200);
		HttpResponse<String> retry = send(request);
		assertThat(retry.statusCode()).isEqualTo(200);
		assertThat(retry.body()).isEqualTo("{}");
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(this.handlers.runs.get()).isEqualTo(1);
	}

	@Test
	void aFormIsBoundAndReplayedAndAnotherFormWithTheKeyIs422() throws Exception {
		String key = UUID.randomUUID().toString();
		assertAnsweredOnce("/fields", key, FORM, HttpRequest.BodyPublishers.ofString("item=book&quantity=2"),
				"{item=[book], quantity=[2]}");
		HttpResponse<String> other = send(
				post("/fields", key, FORM, HttpRequest.BodyPublishers.ofString("item=book&quantity=3")).build());
		assertThat(other.statusCode()).isEqualTo(422);
		assertThat(this.handlers.runs.get()).isEqualTo(1);
	}

	@Test
	void aFormTheHandlerReadsAsItsRawBodyGetsItAsSent() throws Exception {
		assertAnsweredOnce("/raw", FORM, chunked("item=book&note=gift%20wrap"), "item=book&note=gift%20wrap");
	}

	@Test
	void aJsonBodyIsReadAndReplayed() throws Exception {
		assertAnsweredOnce("/json", MediaType.APPLICATION_JSON_VALUE,
				HttpRequest.BodyPublishers.ofString("{\"item\":\"book\"}"), "book");
	}

	private void assertAnsweredOnce(String path, String contentType, HttpRequest.BodyPublisher body, String answer)
			throws Exception {
		assertAnsweredOnce(path, UUID.randomUUID().toString(), contentType, body, answer);
	}

	private void assertAnsweredOnce(String path, String key, String contentType, HttpRequest.BodyPublisher body,
			String answer) throws Exception {
		HttpRequest request = post(path, key, contentType, body).build();
		HttpResponse<String> first = send(request);
		assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
		assertThat(first.body()).isEqualTo(answer);
		assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
		HttpResponse<String> retry = send(request);
		assertThat(retry.statusCode()).as(retry.body()).isEqualTo(200);
		assertThat(retry.body()).isEqualTo(answer);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(this.handlers.runs.get()).isEqualTo(1);
	}

	private HttpRequest.Builder post(String path, String key, String contentType, HttpRequest.BodyPublisher body) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(Duration.ofSeconds(30))
			.header("Idempotency-Key", key)
			.header("Content-Type", contentType)
			.POST(body);
	}

	// a publisher of unknown length is sent chunked
	private static HttpRequest.BodyPublisher chunked(String body) {
		Flow.Publisher<ByteBuffer> bytes = HttpRequest.BodyPublishers.ofString(body);
		return HttpRequest.BodyPublishers.fromPublisher(bytes);
	}

	private static HttpResponse<String> send(HttpRequest request) throws Exception {
		return client.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.idempotency.web.none")
	@Import({ Handlers.class, IdempotencyKeyWebFluxTests.Authenticated.class, FormReader.class })
	static class Application {

		@Bean
		TomcatReactiveWebServerFactory tomcat() {
			return new TomcatReactiveWebServerFactory(0);
		}

	}

	@RestController
	static class Handlers {

		final AtomicInteger runs = new AtomicInteger();

		@PostMapping("/fields")
		Mono<String> fields(ServerWebExchange exchange) {
			return exchange.getFormData()
				.doOnSubscribe((subscription) -> this.runs.incrementAndGet())
				.map(Object::toString);
		}

		@PostMapping("/raw")
		Mono<String> raw(ServerWebExchange exchange) {
			this.runs.incrementAndGet();
			return DataBufferUtils.join(exchange.getRequest().getBody()).map((buffer) -> {
				String body = buffer.toString(StandardCharsets.UTF_8);
				DataBufferUtils.release(buffer);
				return body;
			}).defaultIfEmpty("");
		}

		@PostMapping("/json")
		Mono<String> json(@RequestBody Map<String, String> order) {
			this.runs.incrementAndGet();
			return Mono.just(order.get("item"));
		}

	}

	/**
	 * Reads the form before the idempotency filter when asked to, as Spring Security's
	 * CSRF filter does.
	 */
	static class FormReader implements WebFilter, Ordered {

		@Override
		public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
			if (exchange.getRequest().getHeaders().containsHeader("X-Read-Form")) {
				return exchange.getFormData().then(chain.filter(exchange));
			}
			return chain.filter(exchange);
		}

		@Override
		public int getOrder() {
			return -90;
		}

	}

}
