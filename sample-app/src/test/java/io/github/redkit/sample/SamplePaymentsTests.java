package io.github.redkit.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's payment route, as a client that retries sees it: one payment per
 * {@code Idempotency-Key}, whatever the retries, the same answer to each, and a refusal
 * of a payment without a key or with the key of another payment.
 */
@SampleApplicationTest
class SamplePaymentsTests {

	private final HttpClient client = HttpClient.newHttpClient();

	@Test
	void aRetriedPaymentIsPaidOnceAndAnsweredAlike(@Autowired ConfigurableApplicationContext context) throws Exception {
		SampleClient app = new SampleClient(context);
		String campaign = SampleClient.uniqueName("pay");
		assertThat(app.post("/api/campaigns", "{\"id\":\"" + campaign + "\",\"budget\":1000}").statusCode())
			.isEqualTo(201);
		String port = context.getEnvironment().getProperty("local.server.port");
		String key = UUID.randomUUID().toString();
		HttpResponse<String> paid = pay(port, campaign, key, 250);
		assertThat(paid.statusCode()).isEqualTo(201);
		assertThat(paid.body()).contains("\"remaining\":1250");
		for (int retry = 0; retry < 3; retry++) {
			HttpResponse<String> again = pay(port, campaign, key, 250);
			assertThat(again.statusCode()).isEqualTo(201);
			assertThat(again.body()).isEqualTo(paid.body());
			assertThat(again.headers().firstValue("Location")).isEqualTo(paid.headers().firstValue("Location"));
			assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		}
		assertThat(app.get("/api/campaigns/" + campaign).body()).contains("\"remaining\":1250");
		assertThat(pay(port, campaign, key, 300).statusCode()).isEqualTo(422);
		assertThat(pay(port, campaign, null, 250).statusCode()).isEqualTo(400);
		assertThat(app.get("/api/campaigns/" + campaign).body()).contains("\"remaining\":1250");
	}

	private HttpResponse<String> pay(String port, String campaign, String key, long amount) throws Exception {
		HttpRequest.Builder request = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/campaigns/" + campaign + "/payments"))
			.timeout(Duration.ofSeconds(30))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"amount\":" + amount + "}"));
		if (key != null) {
			request.header("Idempotency-Key", key);
		}
		return this.client.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}
