package io.github.redkit.ratelimit;

import java.security.Principal;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import io.github.redkit.core.ApplicationKeys;
import io.github.redkit.ratelimit.RateLimitFields.Policy;
import io.github.redkit.ratelimit.RateLimitFields.ServiceLimit;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.NonBlockingThreads;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import reactor.core.publisher.Mono;
import static org.assertj.core.api.Assertions.assertThat;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * A WebFlux application on a real Netty server answers a refused {@code @RateLimited}
 * call as the Spring MVC one does: 429, {@code Retry-After}, the draft-11 fields and the
 * draft's problem type, read by {@link WebTestClient} and an RFC 9651 parser; 503 when
 * Redis is unreachable and the failure mode is deny. BlockHound watches the event loops
 * throughout.
 */
@Tag("tests-apart")
class ReactiveWebFluxRateLimitTests {

	// one application per topology for the tests on a reachable Redis, each test
	// starting from its keys removed; those on an unreachable one start their own, so
	// that their request is the first to fail (not one answered by the failure
	// cooldown)
	private static final Map<RedisTopology, ConfigurableApplicationContext> shared = new EnumMap<>(RedisTopology.class);

	@BeforeAll
	static void watchForBlocking() {
		NonBlockingThreads.watch();
	}

	@AfterAll
	static void closeSharedApplications() {
		shared.values().forEach(ConfigurableApplicationContext::close);
		shared.clear();
	}

	/**
	 * The topology's shared application, with every route of the tests below (none of
	 * them on {@code /hello}), its keys removed and its calls counted afresh.
	 */
	private static ConfigurableApplicationContext shared(RedisTopology topology) {
		ConfigurableApplicationContext context = shared.computeIfAbsent(topology, (started) -> start(Stream
			.concat(Stream.of(started.server().springProperties()), Stream.of("redkit.rate-limit.timeout=10s",
					"redkit.key-prefix=wf-" + UUID.randomUUID(), "redkit.rate-limit.limits.failures.windows[0].limit=3",
					"redkit.rate-limit.limits.failures.windows[0].period=1h",
					"redkit.rate-limit.limits.conflicts.windows[0].limit=3",
					"redkit.rate-limit.limits.conflicts.windows[0].period=1h",
					"redkit.rate-limit.limits.errors.windows[0].limit=3",
					"redkit.rate-limit.limits.errors.windows[0].period=1h",
					"redkit.rate-limit.web.routes[0].path=/plain", "redkit.rate-limit.web.routes[0].limit=api",
					"redkit.rate-limit.web.routes[0].key=principal", "redkit.rate-limit.web.routes[1].path=/login",
					"redkit.rate-limit.web.routes[1].limit=failures",
					"redkit.rate-limit.web.routes[1].count-statuses=401,403",
					"redkit.rate-limit.web.routes[2].path=/taken/counted",
					"redkit.rate-limit.web.routes[2].limit=conflicts",
					"redkit.rate-limit.web.routes[2].count-statuses=409",
					"redkit.rate-limit.web.routes[3].path=/taken/uncounted",
					"redkit.rate-limit.web.routes[3].limit=errors",
					"redkit.rate-limit.web.routes[3].count-statuses=5xx"))
			.toArray(String[]::new)));
		ApplicationKeys.remove(context);
		context.getBean(HelloController.class).reset();
		return context;
	}

	@ParameterizedTest
	@RedisTopologies(exercises = Exercises.NODES)
	void refusesWith429RetryAfterRateLimitFieldsAndTheDraftsProblemType(RedisTopology topology) {
		ConfigurableApplicationContext context = shared(topology);
		WebTestClient client = client(context);
		String user = UUID.randomUUID().toString();
		client.get()
			.uri("/hello?user=" + user)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.isEqualTo("hello " + user);
		client.get().uri("/hello?user=" + user).exchange().expectStatus().isOk();
		EntityExchangeResult<byte[]> refused = client.get()
			.uri("/hello?user=" + user)
			.exchange()
			.expectStatus()
			.isEqualTo(429)
			.expectBody()
			.returnResult();
		HttpHeaders headers = refused.getResponseHeaders();
		long retryAfter = Long.parseLong(headers.getFirst(HttpHeaders.RETRY_AFTER));
		assertThat(retryAfter).isPositive();
		List<Policy> policies = RateLimitFields.policies(headers.getFirst("RateLimit-Policy"));
		assertThat(policies).extracting(Policy::name).containsExactly("api-1s", "api-1h");
		assertThat(policies.get(0).partitionKey()).as("a keyed limit names its partition").isNotNull();
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
		assertThat(context.getBean(HelloController.class).calls()).as("the refused call did not run").isEqualTo(2);
	}

	@Test
	void denyModeAnswers503WhenRedisIsUnreachable() {
		try (ConfigurableApplicationContext context = start("spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=1", "redkit.rate-limit.failure-mode=deny", "redkit.rate-limit.timeout=200ms")) {
			client(context).get()
				.uri("/hello?user=u")
				.exchange()
				.expectStatus()
				.isEqualTo(503)
				.expectHeader()
				.valueEquals(HttpHeaders.RETRY_AFTER, "1")
				.expectBody()
				.jsonPath("$.status")
				.isEqualTo(503);
		}
	}

	@Test
	void denyModeAnswers503OnARouteWhenRedisIsUnreachable() {
		try (ConfigurableApplicationContext context = start("spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=1", "redkit.rate-limit.failure-mode=deny", "redkit.rate-limit.timeout=200ms",
				"redkit.rate-limit.web.routes[0].path=/plain", "redkit.rate-limit.web.routes[0].limit=api")) {
			client(context).get()
				.uri("/plain")
				.exchange()
				.expectStatus()
				.isEqualTo(503)
				.expectHeader()
				.valueEquals(HttpHeaders.RETRY_AFTER, "1")
				.expectBody()
				.jsonPath("$.status")
				.isEqualTo(503)
				.jsonPath("$.limit")
				.isEqualTo("api");
		}
	}

	@Test
	void aPrincipalRouteCountsEachAuthenticatedUserApartAndTheAnonymousTogether() {
		ConfigurableApplicationContext context = shared(RedisTopology.STANDALONE);
		WebTestClient client = client(context);
		for (String user : new String[] { "alice", "bob", "" }) {
			for (int call = 1; call <= 3; call++) {
				WebTestClient.RequestHeadersSpec<?> request = client.get().uri("/plain");
				if (!user.isEmpty()) {
					request = request.header(PrincipalFromHeader.HEADER, user);
				}
				// the limit is 2 a second: each user has its own 2, the anonymous
				// share 2
				request.exchange().expectStatus().isEqualTo((call <= 2) ? 200 : 429);
			}
		}
		String policy = client.get()
			.uri("/plain")
			.header(PrincipalFromHeader.HEADER, "carol")
			.exchange()
			.expectStatus()
			.isOk()
			.returnResult(String.class)
			.getResponseHeaders()
			.getFirst("RateLimit-Policy");
		assertThat(RateLimitFields.policies(policy).get(0).partitionKey()).as("the user's partition is named")
			.isNotNull();
	}

	@Test
	void aRouteThatCountsOnlyFailedLogInsGivesBackTheOthersAndRefusesOnceTheFailuresAreSpent() {
		ConfigurableApplicationContext context = shared(RedisTopology.STANDALONE);
		WebTestClient client = client(context);
		for (int i = 0; i < 6; i++) {
			client.get().uri("/login?password=right").exchange().expectStatus().isOk();
		}
		for (int i = 0; i < 3; i++) {
			client.get().uri("/login?password=wrong").exchange().expectStatus().isUnauthorized();
		}
		// the answers were counted once committed: the next request finds the limit
		// spent
		long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
		int status;
		do {
			status = client.get()
				.uri("/login?password=right")
				.exchange()
				.returnResult(String.class)
				.getStatus()
				.value();
		}
		while (status == 200 && System.nanoTime() < deadline);
		assertThat(status).as("three failures spend the limit; successes never counted").isEqualTo(429);
	}

	@Test
	void anExceptionAnsweredByErrorHandlingCountsByTheStatusItGot() {
		ConfigurableApplicationContext context = shared(RedisTopology.STANDALONE);
		WebTestClient client = client(context);
		// the handler's exception is answered 409 by an @ExceptionHandler: not a
		// server error, so a route counting 5xx gives every permit back
		for (int i = 0; i < 6; i++) {
			client.get().uri("/taken/uncounted").exchange().expectStatus().isEqualTo(HttpStatus.CONFLICT);
		}
		// a route counting 409 counts each: three spend the limit
		for (int i = 0; i < 3; i++) {
			client.get().uri("/taken/counted").exchange().expectStatus().isEqualTo(HttpStatus.CONFLICT);
		}
		long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
		int status;
		do {
			status = client.get().uri("/taken/counted").exchange().returnResult(String.class).getStatus().value();
		}
		while (status == 409 && System.nanoTime() < deadline);
		assertThat(status).as("three answers of 409 spend the limit").isEqualTo(429);
		client.get().uri("/taken/uncounted").exchange().expectStatus().isEqualTo(HttpStatus.CONFLICT);
	}

	private static ConfigurableApplicationContext start(String... properties) {
		return new SpringApplicationBuilder(WebFluxApplication.class).web(WebApplicationType.REACTIVE)
			.properties("server.port=0", "redkit.rate-limit.limits.api.windows[0].limit=2",
					"redkit.rate-limit.limits.api.windows[0].period=1s",
					"redkit.rate-limit.limits.api.windows[1].limit=100",
					"redkit.rate-limit.limits.api.windows[1].period=1h")
			.properties(properties)
			.run();
	}

	private static WebTestClient client(ConfigurableApplicationContext context) {
		String port = context.getEnvironment().getProperty("local.server.port");
		return WebTestClient.bindToServer()
			.baseUrl("http://127.0.0.1:" + port)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.ratelimit.none")
	@Import({ HelloController.class, PrincipalFromHeader.class })
	static class WebFluxApplication {

		// loops of its own, closed at once: closing an application on Reactor Netty's
		// global ones would stop the server of another shared application
		@Bean
		ReactorResourceFactory reactorResourceFactory() {
			ReactorResourceFactory factory = new ReactorResourceFactory();
			factory.setUseGlobalResources(false);
			factory.setShutdownQuietPeriod(Duration.ZERO);
			return factory;
		}

	}

	/**
	 * Authenticates a request as the user its header names, where Spring Security's
	 * filter chain would ({@code -100}, before the route filter).
	 */
	static class PrincipalFromHeader implements WebFilter, Ordered {

		static final String HEADER = "X-Test-User";

		@Override
		public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
			String user = exchange.getRequest().getHeaders().getFirst(HEADER);
			if (user == null) {
				return chain.filter(exchange);
			}
			Principal principal = () -> user;
			return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
		}

		@Override
		public int getOrder() {
			return -100;
		}

	}

	@RestController
	static class HelloController {

		private int calls;

		@GetMapping("/hello")
		@RateLimited(value = "api", key = "'user:' + #user")
		Mono<String> hello(@RequestParam String user) {
			return Mono.fromSupplier(() -> {
				this.calls++;
				return "hello " + user;
			});
		}

		@GetMapping("/login")
		Mono<String> login(@RequestParam String password) {
			return password.equals("right") ? Mono.just("welcome")
					: Mono.error(new ResponseStatusException(HttpStatus.UNAUTHORIZED, "wrong password"));
		}

		@GetMapping({ "/taken/counted", "/taken/uncounted" })
		Mono<String> taken() {
			return Mono.error(new IllegalStateException("already taken"));
		}

		@ExceptionHandler(IllegalStateException.class)
		ResponseEntity<String> conflict(IllegalStateException ex) {
			return ResponseEntity.status(HttpStatus.CONFLICT).body(ex.getMessage());
		}

		@GetMapping("/plain")
		Mono<String> plain() {
			return Mono.just("plain");
		}

		int calls() {
			return this.calls;
		}

		void reset() {
			this.calls = 0;
		}

	}

}
