package io.github.redkit.docs;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code Idempotency-Key} configuration of {@code docs/idempotent-steps.md}, on
 * Spring MVC: a payment retried with its key runs once, one without a key is refused.
 */
@SpringBootTest(classes = IdempotencyKeyDocsTests.Application.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.config.location=classpath:docs/idempotency-key.yml")
@RedkitTest
class IdempotencyKeyDocsTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@LocalServerPort
	int port;

	@Test
	void aRetriedPaymentRunsOnce() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first = pay(key);
		HttpResponse<String> retry = pay(key);
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(pay(null).statusCode()).isEqualTo(400);
	}

	private HttpResponse<String> pay(String key) throws Exception {
		HttpRequest.Builder request = HttpRequest
			.newBuilder(URI.create("http://localhost:" + this.port + "/payments/charge"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"amount\":10}"));
		if (key != null) {
			request.header("Idempotency-Key", key);
		}
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(PaymentController.class)
	static class Application {

	}

	@RestController
	static class PaymentController {

		private final AtomicInteger charges = new AtomicInteger();

		@PostMapping("/payments/charge")
		String charge(@RequestBody String body) {
			return "charge " + this.charges.incrementAndGet();
		}

	}

}
