package io.github.redkit.concurrency.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redkit.concurrency.ConcurrencyLimited;
import io.github.redkit.core.web.QuotaHeaders;
import io.github.redkit.ratelimit.RateLimitFields;
import io.github.redkit.ratelimit.RateLimitFields.Policy;
import io.github.redkit.ratelimit.RateLimitFields.ServiceLimit;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The HTTP side of concurrency limits, in a real Spring MVC application on a real Redis:
 * 429 with the IETF fields of a concurrent-requests quota and the quota-exceeded problem,
 * and 503 when Redis is down and the failure mode is deny.
 */
class ConcurrencyLimitWebTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void aRequestOverTheLimitGets429WithTheQuotaFieldsAndAProblem() throws Exception {
		String[] redis = RedisServers.standalone().springProperties();
		try (ConfigurableApplicationContext context = start(redis[0], redis[1],
				"redkit.concurrency-limit.timeout=10s")) {
			String tenant = UUID.randomUUID().toString();
			ExportController.entered = new CountDownLatch(1);
			ExportController.release = new CountDownLatch(1);
			CompletableFuture<HttpResponse<String>> running = this.http.sendAsync(request(context, tenant),
					HttpResponse.BodyHandlers.ofString());
			assertThat(ExportController.entered.await(10, TimeUnit.SECONDS)).isTrue();
			HttpResponse<String> refused = this.http.send(request(context, tenant),
					HttpResponse.BodyHandlers.ofString());
			ExportController.release.countDown();
			assertThat(refused.statusCode()).isEqualTo(429);
			// read as RFC 9651 lists by a parser someone else wrote
			List<Policy> policies = RateLimitFields
				.policies(refused.headers().firstValue("RateLimit-Policy").orElseThrow());
			assertThat(policies).extracting(Policy::name, Policy::quota, Policy::unit, Policy::window)
				.containsExactly(tuple("exports", 1L, "concurrent-requests", null));
			ByteBuffer partition = policies.get(0).partitionKey();
			assertThat(partition).as("the tenant's partition, hashed").isNotNull();
			List<ServiceLimit> limits = RateLimitFields
				.serviceLimits(refused.headers().firstValue("RateLimit").orElseThrow());
			assertThat(limits).extracting(ServiceLimit::name, ServiceLimit::remaining, ServiceLimit::reset)
				.containsExactly(tuple("exports", 0L, null));
			assertThat(limits.get(0).partitionKey()).isEqualTo(partition);
			assertThat(refused.headers().firstValue("Content-Type"))
				.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json"));
			JsonNode problem = JsonMapper.builder().build().readTree(refused.body());
			assertThat(problem.get("status").asInt()).isEqualTo(429);
			assertThat(problem.get("type").asString()).isEqualTo(QuotaHeaders.QUOTA_EXCEEDED);
			assertThat(problem.get("violated-policies").valueStream().map(JsonNode::asString).toList())
				.isEqualTo(List.of("exports"));
			assertThat(refused.body()).as("the key stays out of the answer").doesNotContain(tenant);
			assertThat(running.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
			ExportController.release = new CountDownLatch(0);
			assertThat(this.http.send(request(context, tenant), HttpResponse.BodyHandlers.ofString()).statusCode())
				.isEqualTo(200);
		}
	}

	@Test
	void denyModeAnswers503WithTheFailureCooldownAsRetryAfterWhenRedisIsUnreachable() throws Exception {
		try (ConfigurableApplicationContext context = start("spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=1", "redkit.concurrency-limit.failure-mode=deny",
				"redkit.concurrency-limit.timeout=200ms", "redkit.concurrency-limit.failure-cooldown=3s")) {
			ExportController.entered = new CountDownLatch(1);
			ExportController.release = new CountDownLatch(0);
			HttpResponse<String> response = this.http.send(request(context, "t"), HttpResponse.BodyHandlers.ofString());
			assertThat(response.statusCode()).isEqualTo(503);
			assertThat(response.headers().firstValue("Retry-After")).hasValue("3");
			assertThat(response.body()).contains("\"status\":503").contains("\"limit\":\"exports\"");
		}
	}

	private ConfigurableApplicationContext start(String... properties) {
		String[] args = new String[properties.length + 2];
		args[0] = "--server.port=0";
		args[1] = "--redkit.concurrency-limit.limits.exports.limit=1";
		for (int i = 0; i < properties.length; i++) {
			args[2 + i] = "--" + properties[i];
		}
		return SpringApplication.run(WebApplication.class, args);
	}

	private HttpRequest request(ConfigurableApplicationContext context, String tenant) {
		String port = context.getEnvironment().getProperty("local.server.port");
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/export?tenant=" + tenant)).build();
	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.concurrency.web.none")
	@Import(ExportController.class)
	static class WebApplication {

	}

	@RestController
	static class ExportController {

		static volatile CountDownLatch entered = new CountDownLatch(1);

		static volatile CountDownLatch release = new CountDownLatch(0);

		@GetMapping("/export")
		@ConcurrencyLimited(value = "exports", key = "#tenant")
		String export(@RequestParam String tenant) throws InterruptedException {
			entered.countDown();
			release.await(10, TimeUnit.SECONDS);
			return "exported";
		}

	}

}
