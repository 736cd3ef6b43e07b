package io.github.redkit.ratelimit;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.github.redkit.core.ApplicationKeys;
import io.github.redkit.core.ThreadDumpOnFailure;
import io.github.redkit.core.web.QuotaHeaders;
import io.github.redkit.ratelimit.RateLimitFields.Policy;
import io.github.redkit.ratelimit.RateLimitFields.ServiceLimit;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.NonBlockingThreads;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpHeaders;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * WebFlux on a real Netty server: an allowed {@code @RateLimited} call returning a
 * {@code Mono} or a {@code Flux} carries {@code RateLimit} and {@code RateLimit-Policy}
 * with the values the Spring MVC side writes, and routes configured under
 * {@code redkit.rate-limit.web.routes} are limited without annotations, answering as the
 * annotation does. Read with {@link WebTestClient} and an RFC 9651 parser; BlockHound
 * watches the event loops throughout.
 */
@Tag("tests-apart")
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
@ExtendWith(ThreadDumpOnFailure.class)
class ReactiveWebFluxRateLimitHeadersTests {

	@Parameter
	RedisTopology topology;

	// one application per topology: every test starts from its keys removed
	private static @Nullable ConfigurableApplicationContext shared;

	private ConfigurableApplicationContext context;

	private WebTestClient client;

	@BeforeAll
	static void watchForBlocking() {
		NonBlockingThreads.watch();
	}

	@BeforeParameterizedClassInvocation
	static void startTheApplication(RedisTopology topology) {
		shared = start(topology.springProperties());
	}

	@AfterParameterizedClassInvocation
	static void stopTheApplication() {
		if (shared != null) {
			shared.close();
			shared = null;
		}
	}

	@BeforeEach
	void removeTheApplicationsKeys() {
		this.context = Objects.requireNonNull(shared);
		ApplicationKeys.remove(this.context);
		this.client = client(this.context);
	}

	@Test
	void anAllowedMonoCarriesBothFieldsWithTheServletSidesValues() {
		String user = UUID.randomUUID().toString();
		HttpHeaders headers = this.client.get()
			.uri("/hello?user=" + user)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.isEqualTo("hello " + user)
			.returnResult()
			.getResponseHeaders();
		// the values RateLimitWebTests reads from Spring MVC for the same limit
		ByteBuffer partition = bytes(QuotaHeaders.partitionKey(List.of("user:" + user)));
		List<Policy> policies = RateLimitFields.policies(headers.getFirst("RateLimit-Policy"));
		assertThat(policies).extracting(Policy::name, Policy::quota, Policy::unit, Policy::window)
			.containsExactly(tuple("api-1s", 2L, null, 1L), tuple("api-1h", 100L, null, 3600L));
		assertThat(policies).extracting(Policy::partitionKey).containsOnly(partition);
		ServiceLimit allowed = RateLimitFields.serviceLimits(headers.getFirst("RateLimit")).get(0);
		assertThat(allowed.name()).isEqualTo("api-1s");
		assertThat(allowed.remaining()).isEqualTo(1);
		assertThat(allowed.reset()).isEqualTo(2);
		assertThat(allowed.partitionKey()).isEqualTo(partition);
	}

	@Test
	void anAllowedFluxCarriesBothFields() {
		String user = UUID.randomUUID().toString();
		HttpHeaders headers = this.client.get()
			.uri("/letters?user=" + user)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseHeaders();
		assertThat(RateLimitFields.policies(headers.getFirst("RateLimit-Policy"))).hasSize(2);
		assertThat(RateLimitFields.serviceLimits(headers.getFirst("RateLimit")).get(0).remaining()).isEqualTo(1);
	}

	@Test
	void aRouteIsLimitedWithoutAnnotationsAndRefusedAsTheAnnotationIs() {
		String apiKey = UUID.randomUUID().toString();
		HttpHeaders first = this.client.get()
			.uri("/routes/plain")
			.header("X-Api-Key", apiKey)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.isEqualTo("plain")
			.returnResult()
			.getResponseHeaders();
		ByteBuffer partition = bytes(QuotaHeaders.partitionKey(List.of("header:x-api-key:" + apiKey)));
		List<Policy> policies = RateLimitFields.policies(first.getFirst("RateLimit-Policy"));
		assertThat(policies).extracting(Policy::name, Policy::quota, Policy::window)
			.containsExactly(tuple("api-1s", 2L, 1L), tuple("api-1h", 100L, 3600L));
		assertThat(policies.get(0).partitionKey()).isEqualTo(partition);
		assertThat(RateLimitFields.serviceLimits(first.getFirst("RateLimit")).get(0).remaining()).isEqualTo(1);
		this.client.get().uri("/routes/plain").header("X-Api-Key", apiKey).exchange().expectStatus().isOk();
		int calls = this.context.getBean(HelloController.class).plainCalls();
		EntityExchangeResult<byte[]> refused = this.client.get()
			.uri("/routes/plain")
			.header("X-Api-Key", apiKey)
			.exchange()
			.expectStatus()
			.isEqualTo(429)
			.expectBody()
			.returnResult();
		HttpHeaders headers = refused.getResponseHeaders();
		long retryAfter = Long.parseLong(headers.getFirst(HttpHeaders.RETRY_AFTER));
		assertThat(retryAfter).isPositive();
		assertThat(RateLimitFields.policies(headers.getFirst("RateLimit-Policy"))).hasSize(2);
		ServiceLimit exhausted = RateLimitFields.serviceLimits(headers.getFirst("RateLimit")).get(0);
		assertThat(exhausted.name()).isEqualTo("api-1s");
		assertThat(exhausted.remaining()).isZero();
		assertThat(exhausted.reset()).isNotNull().isPositive().isLessThanOrEqualTo(retryAfter);
		assertThat(headers.getContentType()).hasToString("application/problem+json");
		JsonNode problem = JsonMapper.builder().build().readTree(refused.getResponseBody());
		assertThat(problem.get("type").asString())
			.isEqualTo("https://iana.org/assignments/http-problem-types#quota-exceeded");
		assertThat(problem.get("status").asInt()).isEqualTo(429);
		assertThat(problem.get("violated-policies").toString()).isEqualTo("[\"api-1s\"]");
		assertThat(problem.get("limit").asString()).isEqualTo("api");
		assertThat(problem.get("instance").asString()).isEqualTo("/routes/plain");
		assertThat(this.context.getBean(HelloController.class).plainCalls()).as("the refused request did not run")
			.isEqualTo(calls);
		this.client.get().uri("/routes/plain").header("X-Api-Key", "other-" + apiKey).exchange().expectStatus().isOk();
	}

	@Test
	void requestsWithoutTheIdentifierShareOnePartitionAndOtherMethodsAreNotLimited() {
		// a route of its own (POST only, limit "tight" of 1 per hour, keyed by a header)
		this.client.post().uri("/tight").exchange().expectStatus().isOk();
		this.client.post().uri("/tight").exchange().expectStatus().isEqualTo(429);
		this.client.post().uri("/tight").header("X-Tenant", "").exchange().expectStatus().isEqualTo(429);
		this.client.get().uri("/tight").exchange().expectStatus().isOk();
		this.client.get().uri("/tight").exchange().expectStatus().isOk();
		String tenant = UUID.randomUUID().toString();
		this.client.post().uri("/tight").header("X-Tenant", tenant).exchange().expectStatus().isOk();
	}

	@Test
	void aBurstFromConcurrentClientsNeverGetsMoreThanTheLimitThrough() {
		String apiKey = UUID.randomUUID().toString();
		int clients = 8;
		int requestsEach = 6;
		// the application's first decision connects to Redis (off the event loop); the
		// burst is about the limit, not about the connection
		this.client.get().uri("/routes/plain").header("X-Api-Key", apiKey).exchange().expectStatus().isOk();
		WebClient web = WebClient
			.create("http://127.0.0.1:" + this.context.getEnvironment().getProperty("local.server.port"));
		List<Integer> statuses = Flux.range(0, clients)
			.flatMap((client) -> Flux.range(0, requestsEach)
				.concatMap((request) -> web.get()
					.uri("/burst/x")
					.header("X-Api-Key", apiKey)
					.exchangeToMono((response) -> response.releaseBody().thenReturn(response.statusCode().value()))),
					clients)
			.collectList()
			.block(Duration.ofSeconds(60));
		// "burst" allows 10 per hour
		assertThat(statuses.stream().collect(Collectors.groupingBy((status) -> status, Collectors.counting())))
			.containsExactlyInAnyOrderEntriesOf(Map.of(200, 10L, 429, (long) clients * requestsEach - 10));
	}

	private static ByteBuffer bytes(String byteSequence) {
		return ByteBuffer.wrap(Base64.getDecoder().decode(byteSequence.substring(1, byteSequence.length() - 1)));
	}

	static ConfigurableApplicationContext start(String... properties) {
		return new SpringApplicationBuilder(WebFluxApplication.class).web(WebApplicationType.REACTIVE)
			// closing the application disposes Reactor Netty's global loops: without the
			// quiet period of 2 s that its close would wait out
			.properties("server.port=0", "spring.reactor.netty.shutdown-quiet-period=0s",
					"redkit.rate-limit.timeout=10s", "redkit.key-prefix=wf-" + UUID.randomUUID(),
					"redkit.rate-limit.limits.api.windows[0].limit=2",
					"redkit.rate-limit.limits.api.windows[0].period=1s",
					"redkit.rate-limit.limits.api.windows[1].limit=100",
					"redkit.rate-limit.limits.api.windows[1].period=1h",
					"redkit.rate-limit.limits.tight.windows[0].limit=1",
					"redkit.rate-limit.limits.tight.windows[0].period=1h",
					"redkit.rate-limit.limits.burst.windows[0].limit=10",
					"redkit.rate-limit.limits.burst.windows[0].period=1h",
					"redkit.rate-limit.web.routes[0].path=/routes/**", "redkit.rate-limit.web.routes[0].limit=api",
					"redkit.rate-limit.web.routes[0].key=header:X-Api-Key",
					"redkit.rate-limit.web.routes[1].path=/tight", "redkit.rate-limit.web.routes[1].limit=tight",
					"redkit.rate-limit.web.routes[1].key=header:X-Tenant",
					"redkit.rate-limit.web.routes[1].methods=POST", "redkit.rate-limit.web.routes[2].path=/burst/**",
					"redkit.rate-limit.web.routes[2].limit=burst",
					"redkit.rate-limit.web.routes[2].key=header:X-Api-Key")
			.properties(properties)
			.run();
	}

	static WebTestClient client(ConfigurableApplicationContext context) {
		String port = context.getEnvironment().getProperty("local.server.port");
		return WebTestClient.bindToServer()
			.baseUrl("http://127.0.0.1:" + port)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.ratelimit.none")
	@Import(HelloController.class)
	static class WebFluxApplication {

	}

	@RestController
	static class HelloController {

		private final AtomicInteger plainCalls = new AtomicInteger();

		@GetMapping("/hello")
		@RateLimited(value = "api", key = "'user:' + #user")
		Mono<String> hello(@RequestParam String user) {
			return Mono.just("hello " + user);
		}

		@GetMapping("/letters")
		@RateLimited(value = "api", key = "'user:' + #user")
		Flux<String> letters(@RequestParam String user) {
			return Flux.just("a", "b", "c");
		}

		@GetMapping("/routes/plain")
		Mono<String> plain() {
			return Mono.fromSupplier(() -> {
				this.plainCalls.incrementAndGet();
				return "plain";
			});
		}

		int plainCalls() {
			return this.plainCalls.get();
		}

		@GetMapping({ "/tight", "/burst/x" })
		Mono<String> tight() {
			return Mono.just("ok");
		}

		@PostMapping("/tight")
		Mono<String> tightPost() {
			return Mono.just("ok");
		}

	}

}
