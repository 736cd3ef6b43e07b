package io.github.redkit.ratelimit;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.ratelimit.RateLimitFields.Policy;
import io.github.redkit.ratelimit.RateLimitFields.ServiceLimit;
import io.github.redkit.testsupport.RedisServers;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
 * The HTTP side of rate limiting, in a real Spring MVC application on a real Redis, read
 * by a real HTTP client and an RFC 9651 parser: 429 with {@code Retry-After}, the
 * draft-11 {@code RateLimit} fields and the draft's problem type, fields on allowed
 * responses, a {@code Retry-After} that admits a client who waits it and no earlier, and
 * 503 when Redis is down and the failure mode is deny. The tests that need no setting of
 * their own share one application, each on identifiers of its own.
 */
class RateLimitWebTests {

	private static @Nullable ConfigurableApplicationContext shared;

	private final HttpClient http = HttpClient.newHttpClient();

	@BeforeAll
	static void startTheSharedApplication() {
		String[] redis = RedisServers.standalone().springProperties();
		// a generous timeout: these tests are about headers, not about a loaded
		// machine's latency
		shared = start(redis[0], redis[1], "redkit.rate-limit.timeout=10s");
	}

	@AfterAll
	static void closeTheSharedApplication() {
		if (shared != null) {
			shared.close();
		}
	}

	@Test
	void refusesWith429RetryAfterRateLimitFieldsAndTheDraftsProblemType() throws Exception {
		ConfigurableApplicationContext context = shared();
		String user = UUID.randomUUID().toString();
		HttpResponse<String> first = get(context, "/hello?user=" + user);
		assertThat(first.statusCode()).isEqualTo(200);
		List<Policy> policies = RateLimitFields.policies(header(first, "RateLimit-Policy"));
		assertThat(policies).extracting(Policy::name, Policy::quota, Policy::unit, Policy::window)
			.containsExactly(tuple("api-1s", 2L, null, 1L), tuple("api-1h", 100L, null, 3600L));
		ByteBuffer partition = policies.get(0).partitionKey();
		assertThat(partition).as("a keyed limit names its partition").isNotNull();
		assertThat(partition.remaining()).isEqualTo(9);
		ServiceLimit allowed = RateLimitFields.serviceLimits(header(first, "RateLimit")).get(0);
		assertThat(allowed.name()).isEqualTo("api-1s");
		assertThat(allowed.remaining()).isEqualTo(1);
		// a permit comes back one period after the end of the call's sub-window
		assertThat(allowed.reset()).isEqualTo(2);
		assertThat(allowed.partitionKey()).isEqualTo(partition);
		assertThat(get(context, "/hello?user=" + user).statusCode()).isEqualTo(200);
		HttpResponse<String> refused = get(context, "/hello?user=" + user);
		assertThat(refused.statusCode()).isEqualTo(429);
		long retryAfter = Long.parseLong(header(refused, "Retry-After"));
		ServiceLimit exhausted = RateLimitFields.serviceLimits(header(refused, "RateLimit")).get(0);
		assertThat(exhausted.name()).isEqualTo("api-1s");
		assertThat(exhausted.remaining()).isZero();
		// the draft: Retry-After never points before the moment t announces
		assertThat(exhausted.reset()).isNotNull().isPositive().isLessThanOrEqualTo(retryAfter);
		assertThat(RateLimitFields.policies(header(refused, "RateLimit-Policy"))).hasSize(2);
		assertThat(header(refused, "Content-Type")).startsWith("application/problem+json");
		JsonNode problem = JsonMapper.builder().build().readTree(refused.body());
		assertThat(problem.get("type").asString())
			.isEqualTo("https://iana.org/assignments/http-problem-types#quota-exceeded");
		assertThat(problem.get("status").asInt()).isEqualTo(429);
		assertThat(problem.get("violated-policies").toString()).isEqualTo("[\"api-1s\"]");
		assertThat(problem.get("limit").asString()).isEqualTo("api");
		HttpResponse<String> other = get(context, "/hello?user=other-" + user);
		assertThat(other.statusCode()).isEqualTo(200);
		assertThat(RateLimitFields.policies(header(other, "RateLimit-Policy")).get(0).partitionKey())
			.as("another identifier is another partition")
			.isNotEqualTo(partition);
	}

	@Test
	void aClientThatWaitsRetryAfterIsAdmittedAndOneThatRetriesEarlierIsNot() throws Exception {
		ConfigurableApplicationContext context = shared();
		String user = UUID.randomUUID().toString();
		assertThat(get(context, "/login?user=" + user).statusCode()).isEqualTo(200);
		HttpResponse<String> refused = get(context, "/login?user=" + user);
		long received = System.nanoTime();
		assertThat(refused.statusCode()).isEqualTo(429);
		// one call per 3 s: the first call was made just before, so Retry-After is 3
		// and one second earlier is still inside the period
		long retryAfter = Long.parseLong(header(refused, "Retry-After"));
		assertThat(retryAfter).isEqualTo(3);
		waitUntil(received + TimeUnit.SECONDS.toNanos(retryAfter - 1));
		HttpResponse<String> early = get(context, "/login?user=" + user);
		assertThat(early.statusCode()).isEqualTo(429);
		assertThat(Long.parseLong(header(early, "Retry-After"))).isEqualTo(1);
		waitUntil(received + TimeUnit.SECONDS.toNanos(retryAfter));
		assertThat(get(context, "/login?user=" + user).statusCode()).isEqualTo(200);
	}

	@Test
	void aLimitWithoutKeysNamesNoPartition() throws Exception {
		HttpResponse<String> response = get(shared(), "/status");
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(RateLimitFields.policies(header(response, "RateLimit-Policy")).get(0).partitionKey()).isNull();
		assertThat(RateLimitFields.serviceLimits(header(response, "RateLimit")).get(0).partitionKey()).isNull();
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

	private static ConfigurableApplicationContext shared() {
		ConfigurableApplicationContext context = shared;
		if (context == null) {
			throw new IllegalStateException("The shared application did not start");
		}
		return context;
	}

	private static ConfigurableApplicationContext start(String... properties) {
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

	private static String header(HttpResponse<String> response, String name) {
		return response.headers()
			.firstValue(name)
			.orElseThrow(() -> new AssertionError("no " + name + " field in " + response.headers()));
	}

	private static void waitUntil(long nanos) {
		while (System.nanoTime() < nanos) {
			LockSupport.parkNanos(Math.min(nanos - System.nanoTime(), 10_000_000));
		}
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

		@GetMapping("/login")
		@RateLimited(limit = 1, period = "3s", algorithm = RateLimitAlgorithm.SLIDING_LOG, key = "#user")
		String login(@RequestParam String user) {
			return "welcome " + user;
		}

		@GetMapping("/status")
		@RateLimited(limit = 1000, period = "1m")
		String status() {
			return "up";
		}

	}

}
