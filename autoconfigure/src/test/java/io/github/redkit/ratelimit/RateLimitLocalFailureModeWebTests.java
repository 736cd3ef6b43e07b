package io.github.redkit.ratelimit;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import io.github.redkit.ratelimit.RateLimitFields.Policy;
import io.github.redkit.testsupport.NonBlockingThreads;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The local failure mode over HTTP, on Spring MVC (Tomcat) and WebFlux (Netty, under
 * BlockHound), with Redis frozen: allowed and refused answers carry
 * {@code Redkit-Degraded: local} besides the {@code RateLimit} fields, which announce the
 * local share of the limit; once Redis answers again the mark is gone.
 */
@Tag("tests-apart")
class RateLimitLocalFailureModeWebTests {

	private static final String[] LOCAL = { "redkit.rate-limit.failure-mode=local",
			"redkit.rate-limit.local.expected-instances=2", "redkit.rate-limit.timeout=200ms",
			"redkit.rate-limit.failure-cooldown=300ms", "spring.data.redis.timeout=5s" };

	@PrivateRedis
	private static RedisServer redis;

	private final HttpClient http = HttpClient.newHttpClient();

	@BeforeAll
	static void startRedis() {
		NonBlockingThreads.watch();
	}

	@Test
	void springMvcMarksTheAnswersDecidedLocallyWhileRedisIsFrozen() throws Exception {
		String[] args = args(redis.springProperties(), "redkit.rate-limit.limits.api.windows[0].limit=2",
				"redkit.rate-limit.limits.api.windows[0].period=10s",
				"redkit.rate-limit.limits.api.windows[1].limit=100",
				"redkit.rate-limit.limits.api.windows[1].period=1h", "server.port=0");
		try (ConfigurableApplicationContext context = SpringApplication.run(RateLimitWebTests.WebApplication.class,
				args)) {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> mvc(context, "/hello?user=" + UUID.randomUUID()).headers()
					.firstValue("Redkit-Degraded")
					.isEmpty());
			String user = UUID.randomUUID().toString();
			redis.pause();
			try {
				HttpResponse<String> allowed = mvc(context, "/hello?user=" + user);
				assertThat(allowed.statusCode()).isEqualTo(200);
				assertThat(allowed.headers().firstValue("Redkit-Degraded")).hasValue("local");
				assertThat(RateLimitFields.policies(allowed.headers().firstValue("RateLimit-Policy").orElseThrow()))
					.extracting(Policy::name, Policy::quota)
					.containsExactly(org.assertj.core.groups.Tuple.tuple("api-10s", 1L),
							org.assertj.core.groups.Tuple.tuple("api-1h", 50L));
				assertThat(RateLimitFields.serviceLimits(allowed.headers().firstValue("RateLimit").orElseThrow())
					.get(0)
					.remaining()).isZero();
				HttpResponse<String> refused = mvc(context, "/hello?user=" + user);
				assertThat(refused.statusCode()).isEqualTo(429);
				assertThat(refused.headers().firstValue("Redkit-Degraded")).hasValue("local");
				assertThat(refused.headers().firstValue("Retry-After")).isPresent();
				assertThat(refused.headers().firstValue("RateLimit")).isPresent();
			}
			finally {
				redis.resume();
			}
			await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
				HttpResponse<String> back = mvc(context, "/hello?user=" + UUID.randomUUID());
				assertThat(back.statusCode()).isEqualTo(200);
				assertThat(back.headers().firstValue("Redkit-Degraded")).isEmpty();
			});
		}
	}

	@Test
	void webFluxMarksAnnotatedMethodsAndRoutesDecidedLocallyWhileRedisIsFrozen() {
		String[] redisProperties = redis.springProperties();
		try (ConfigurableApplicationContext context = ReactiveWebFluxRateLimitHeadersTests.start(redisProperties[0],
				redisProperties[1], LOCAL[0], LOCAL[1], LOCAL[2], LOCAL[3], LOCAL[4],
				// a slow machine must not see a period pass between two requests
				"redkit.rate-limit.limits.api.windows[0].period=10s")) {
			WebTestClient client = ReactiveWebFluxRateLimitHeadersTests.client(context);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> client.get()
					.uri("/hello?user=" + UUID.randomUUID())
					.exchange()
					.expectBody(String.class)
					.returnResult()
					.getResponseHeaders()
					.getFirst("Redkit-Degraded") == null);
			String user = UUID.randomUUID().toString();
			String apiKey = UUID.randomUUID().toString();
			redis.pause();
			try {
				EntityExchangeResult<String> allowed = client.get()
					.uri("/hello?user=" + user)
					.exchange()
					.expectStatus()
					.isOk()
					.expectHeader()
					.valueEquals("Redkit-Degraded", "local")
					.expectBody(String.class)
					.returnResult();
				assertThat(RateLimitFields.policies(allowed.getResponseHeaders().getFirst("RateLimit-Policy")))
					.extracting(Policy::quota)
					.containsExactly(1L, 50L);
				client.get()
					.uri("/hello?user=" + user)
					.exchange()
					.expectStatus()
					.isEqualTo(429)
					.expectHeader()
					.valueEquals("Redkit-Degraded", "local")
					.expectHeader()
					.exists("Retry-After");
				client.get()
					.uri("/routes/plain")
					.header("X-Api-Key", apiKey)
					.exchange()
					.expectStatus()
					.isOk()
					.expectHeader()
					.valueEquals("Redkit-Degraded", "local")
					.expectHeader()
					.exists("RateLimit");
				client.get()
					.uri("/routes/plain")
					.header("X-Api-Key", apiKey)
					.exchange()
					.expectStatus()
					.isEqualTo(429)
					.expectHeader()
					.valueEquals("Redkit-Degraded", "local");
			}
			finally {
				redis.resume();
			}
			await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
				client.get()
					.uri("/hello?user=" + UUID.randomUUID())
					.exchange()
					.expectStatus()
					.isOk()
					.expectHeader()
					.doesNotExist("Redkit-Degraded");
				client.get()
					.uri("/routes/plain")
					.header("X-Api-Key", UUID.randomUUID().toString())
					.exchange()
					.expectStatus()
					.isOk()
					.expectHeader()
					.doesNotExist("Redkit-Degraded");
			});
		}
	}

	private static String[] args(String[] redis, String... more) {
		String[] args = new String[redis.length + LOCAL.length + more.length];
		int i = 0;
		for (String[] group : new String[][] { redis, LOCAL, more }) {
			for (String property : group) {
				args[i++] = "--" + property;
			}
		}
		return args;
	}

	private HttpResponse<String> mvc(ConfigurableApplicationContext context, String path) throws Exception {
		String port = context.getEnvironment().getProperty("local.server.port");
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

}
