package io.github.redkit.idempotency.web;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import io.github.redkit.testsupport.RedisServers;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Mono;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.ReactorResourceFactory;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The HTTP {@code Idempotency-Key} on a real Tomcat (Spring MVC) and a real Netty
 * (WebFlux) server, driven by the JDK's HTTP client, one that gives up after a timeout
 * and retries: the first request runs once, a retry while it runs gets 409, then the
 * recorded response marked as a replay; the key with another request is 422, none or a
 * malformed one 400, a body over the limit 413, Redis away 503; a server error is not
 * recorded; keys are scoped to the user.
 */
class IdempotencyKeyHttpTests {

	private static final HttpClient client = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	// one application per stack for the tests that need no setting of their own
	private static final Map<Stack, ConfigurableApplicationContext> shared = new EnumMap<>(Stack.class);

	@AfterAll
	static void closeSharedApplications() {
		shared.values().forEach(ConfigurableApplicationContext::close);
		shared.clear();
	}

	/**
	 * The stack's shared application, its payments started afresh: every test uses keys
	 * of its own, so the only state tests could share is the payments' count and hold.
	 * Requests over 1 KB are refused (413), far above every other test's body.
	 */
	private static ConfigurableApplicationContext shared(Stack stack) {
		ConfigurableApplicationContext context = shared.computeIfAbsent(stack,
				(started) -> started.start("redkit.idempotency.http.max-request-size=1KB"));
		payments(context).reset();
		return context;
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void theFirstRequestRunsAndARetryGetsItsResponseMarkedReplayed(Stack stack) throws Exception {
		ConfigurableApplicationContext context = shared(stack);
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first = post(context, "/payments", key, "{\"amount\":10}", null);
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
		HttpResponse<String> retry = post(context, "/payments", key, "{\"amount\":10}", null);
		assertThat(retry.statusCode()).isEqualTo(201);
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
		assertThat(retry.headers().firstValue("Content-Type"))
			.hasValueSatisfying((type) -> assertThat(type).startsWith("application/json"));
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(payments(context).runs.get()).isEqualTo(1);
		// the draft's form: a structured-field string
		HttpResponse<String> quoted = post(context, "/payments", "\"" + key + "\"", "{\"amount\":10}", null);
		assertThat(quoted.body()).isEqualTo(first.body());
		assertThat(payments(context).runs.get()).isEqualTo(1);
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void aRetryWhileTheFirstRunsGets409ThenTheFirstResponse(Stack stack) throws Exception {
		ConfigurableApplicationContext context = shared(stack);
		Payments payments = payments(context);
		String key = UUID.randomUUID().toString();
		String body = "{\"amount\":25,\"hold\":true}";
		CompletableFuture<HttpResponse<String>> first = client.sendAsync(
				request(context, "/payments", key, body, null, Duration.ofSeconds(30)),
				HttpResponse.BodyHandlers.ofString());
		HttpResponse<String> whileRunning = retryWhileNotClaimed(context, key, body);
		assertThat(whileRunning.statusCode()).isEqualTo(409);
		assertThat(whileRunning.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(whileRunning.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(whileRunning.body()).contains("\"title\":\"Request in progress\"", "\"status\":409");
		payments.release.complete(null);
		assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
		HttpResponse<String> retry = post(context, "/payments", key, body, null);
		assertThat(retry.statusCode()).isEqualTo(201);
		assertThat(retry.body()).isEqualTo(first.get().body());
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(payments.runs.get()).isEqualTo(1);
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void aClientThatTimesOutAndRetriesGetsTheRequestRunOnce(Stack stack) throws Exception {
		ConfigurableApplicationContext context = shared(stack);
		Payments payments = payments(context);
		String key = UUID.randomUUID().toString();
		String body = "{\"amount\":25,\"hold\":true}";
		assertThatExceptionOfType(HttpTimeoutException.class)
			.isThrownBy(() -> post(context, "/payments", key, body, null, Duration.ofMillis(300)));
		payments.release.complete(null);
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		HttpResponse<String> retry = post(context, "/payments", key, body, null);
		while (retry.statusCode() == 409) {
			assertThat(System.nanoTime()).as("the first request ended").isLessThan(deadline);
			retry = post(context, "/payments", key, body, null);
		}
		assertThat(retry.statusCode()).isEqualTo(201);
		assertThat(payments.runs.get()).isEqualTo(1);
		// the first request ran to its end although its client went, and the retry
		// gets its response
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void refusesAReusedKeyWith422AndAMissingOrMalformedOneWith400(Stack stack) throws Exception {
		ConfigurableApplicationContext context = shared(stack);
		String key = UUID.randomUUID().toString();
		assertThat(post(context, "/payments", key, "{\"amount\":10}", null).statusCode()).isEqualTo(201);
		HttpResponse<String> reused = post(context, "/payments", key, "{\"amount\":11}", null);
		assertThat(reused.statusCode()).isEqualTo(422);
		assertThat(reused.body()).contains("\"title\":\"Idempotency key reused\"", "\"instance\":\"/payments\"");
		assertThat(post(context, "/payments?again", key, "{\"amount\":10}", null).statusCode()).isEqualTo(422);
		HttpResponse<String> missing = post(context, "/payments", null, "{\"amount\":10}", null);
		assertThat(missing.statusCode()).isEqualTo(400);
		assertThat(missing.body()).contains("\"title\":\"Idempotency key missing\"", "Idempotency-Key");
		HttpResponse<String> tooLong = post(context, "/payments", "k".repeat(256), "{\"amount\":10}", null);
		assertThat(tooLong.statusCode()).isEqualTo(400);
		assertThat(tooLong.body()).contains("redkit.idempotency.http.max-key-length");
		assertThat(post(context, "/payments", "\"\"", "{}", null).statusCode()).isEqualTo(400);
		HttpResponse<String> large = post(context, "/payments", UUID.randomUUID().toString(),
				"{\"note\":\"" + "x".repeat(2000) + "\"}", null);
		assertThat(large.statusCode()).isEqualTo(413);
		assertThat(large.body()).contains("redkit.idempotency.http.max-request-size");
		assertThat(payments(context).runs.get()).isEqualTo(1);
		// a route where the key is optional runs without one
		assertThat(post(context, "/tips", null, "{\"amount\":1}", null).statusCode()).isEqualTo(201);
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void anAsynchronousHandlersResponseIsRecordedWhenItEnds(Stack stack) throws Exception {
		ConfigurableApplicationContext context = shared(stack);
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first = post(context, "/payments/later", key, "{\"amount\":7}", null);
		assertThat(first.statusCode()).isEqualTo(201);
		HttpResponse<String> retry = post(context, "/payments/later", key, "{\"amount\":7}", null);
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(payments(context).runs.get()).isEqualTo(1);
		String failing = UUID.randomUUID().toString();
		assertThat(post(context, "/payments/later", failing, "{\"amount\":-7}", null).statusCode()).isEqualTo(500);
		assertThat(post(context, "/payments/later", failing, "{\"amount\":-7}", null).statusCode()).isEqualTo(500);
		assertThat(payments(context).runs.get()).isEqualTo(3);
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void aServerErrorIsNotRecordedSoARetryRunsAgain(Stack stack) throws Exception {
		ConfigurableApplicationContext context = shared(stack);
		String key = UUID.randomUUID().toString();
		assertThat(post(context, "/payments", key, "{\"amount\":-1}", null).statusCode()).isEqualTo(500);
		assertThat(post(context, "/payments", key, "{\"amount\":-1}", null).statusCode()).isEqualTo(500);
		assertThat(payments(context).runs.get()).isEqualTo(2);
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void keysAreScopedToTheUser(Stack stack) throws Exception {
		ConfigurableApplicationContext context = shared(stack);
		String key = UUID.randomUUID().toString();
		HttpResponse<String> alice = post(context, "/payments", key, "{\"amount\":10}", "alice");
		HttpResponse<String> bob = post(context, "/payments", key, "{\"amount\":10}", "bob");
		assertThat(bob.statusCode()).isEqualTo(201);
		assertThat(bob.headers().firstValue("Idempotent-Replayed")).isEmpty();
		assertThat(bob.body()).isNotEqualTo(alice.body());
		assertThat(post(context, "/payments", key, "{\"amount\":10}", "alice").body()).isEqualTo(alice.body());
		assertThat(payments(context).runs.get()).isEqualTo(2);
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void aResponseLargerThanARecordHoldsIsNotReplayed(Stack stack) throws Exception {
		try (ConfigurableApplicationContext context = stack.start("redkit.idempotency.http.max-response-size=10B")) {
			String key = UUID.randomUUID().toString();
			HttpResponse<String> first = post(context, "/payments", key, "{\"amount\":10}", null);
			assertThat(first.body()).isNotEmpty();
			HttpResponse<String> retry = post(context, "/payments", key, "{\"amount\":10}", null);
			// it streamed to its client and is not replayable, on both stacks
			assertThat(retry.statusCode()).isEqualTo(410);
			assertThat(retry.body()).contains("\"title\":\"Response not replayable\"");
			assertThat(payments(context).runs.get()).isEqualTo(1);
		}
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void withRedisAwayTheRequestIsNotRun(Stack stack) throws Exception {
		int port = RedisServers.unusedPort();
		try (ConfigurableApplicationContext context = stack.start("spring.data.redis.port=" + port,
				"redkit.doctor.enabled=false")) {
			HttpResponse<String> answer = post(context, "/payments", UUID.randomUUID().toString(), "{\"amount\":10}",
					null);
			assertThat(answer.statusCode()).isEqualTo(503);
			assertThat(answer.body()).contains("\"title\":\"Idempotency unavailable\"");
			assertThat(payments(context).runs.get()).isZero();
		}
	}

	// the first request may not have claimed its key yet when the retry comes
	private static HttpResponse<String> retryWhileNotClaimed(ConfigurableApplicationContext context, String key,
			String body) throws IOException, InterruptedException {
		assertThat(payments(context).holding.await(10, TimeUnit.SECONDS)).as("the first request runs").isTrue();
		return post(context, "/payments", key, body, null);
	}

	private static Payments payments(ConfigurableApplicationContext context) {
		return context.getBean(Payments.class);
	}

	private static HttpResponse<String> post(ConfigurableApplicationContext context, String path, @Nullable String key,
			String body, @Nullable String user) throws IOException, InterruptedException {
		return post(context, path, key, body, user, Duration.ofSeconds(30));
	}

	private static HttpResponse<String> post(ConfigurableApplicationContext context, String path, @Nullable String key,
			String body, @Nullable String user, Duration timeout) throws IOException, InterruptedException {
		return client.send(request(context, path, key, body, user, timeout), HttpResponse.BodyHandlers.ofString());
	}

	private static HttpRequest request(ConfigurableApplicationContext context, String path, @Nullable String key,
			String body, @Nullable String user, Duration timeout) {
		String port = context.getEnvironment().getProperty("local.server.port");
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(timeout)
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body));
		if (key != null) {
			request.header("Idempotency-Key", key);
		}
		if (user != null) {
			request.header(USER, user);
		}
		return request.build();
	}

	static final String USER = "X-Test-User";

	enum Stack {

		SERVLET(WebApplicationType.SERVLET, MvcApplication.class),

		REACTIVE(WebApplicationType.REACTIVE, WebFluxApplication.class);

		private final WebApplicationType type;

		private final Class<?> application;

		Stack(WebApplicationType type, Class<?> application) {
			this.type = type;
			this.application = application;
		}

		ConfigurableApplicationContext start(String... properties) {
			List<String> all = new ArrayList<>(List.of(RedisServers.standalone().springProperties()));
			all.addAll(List.of("server.port=0", "redkit.key-prefix=redkit-test-" + UUID.randomUUID(),
					"redkit.idempotency.http.routes[0].path=/payments/**",
					"redkit.idempotency.http.routes[1].path=/tips", "redkit.idempotency.http.routes[1].required=false",
					"redkit.idempotency.timeout=1s", "redkit.idempotency.http.anonymous=shared"));
			all.addAll(List.of(properties));
			return new SpringApplicationBuilder(this.application).web(this.type)
				.properties(all.toArray(String[]::new))
				.run();
		}

	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.idempotency.web.none")
	@Import({ Payments.class, MvcPaymentsController.class, LaterPaymentsController.class,
			MvcPrincipalFromHeader.class })
	static class MvcApplication {

	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.idempotency.web.none")
	@Import({ Payments.class, WebFluxPaymentsController.class, LaterPaymentsController.class,
			WebFluxPrincipalFromHeader.class })
	static class WebFluxApplication {

		// loops of its own: closing an application on Reactor Netty's global ones would
		// stop the server of the stack's shared application
		@Bean
		ReactorResourceFactory reactorResourceFactory() {
			ReactorResourceFactory factory = new ReactorResourceFactory();
			factory.setUseGlobalResources(false);
			factory.setShutdownQuietPeriod(Duration.ZERO);
			return factory;
		}

	}

	/**
	 * The payments both stacks take: each run gets a new number, a run asked to hold
	 * waits for the test to release it, a negative amount fails.
	 */
	static class Payments {

		final AtomicInteger runs = new AtomicInteger();

		volatile CompletableFuture<Void> release = new CompletableFuture<>();

		volatile CountDownLatch holding = new CountDownLatch(1);

		/**
		 * Starts afresh for the next test, first letting go a run an earlier test may
		 * have left held.
		 */
		void reset() {
			this.release.complete(null);
			this.release = new CompletableFuture<>();
			this.holding = new CountDownLatch(1);
			this.runs.set(0);
		}

		ResponseEntity<String> pay(Payment payment, @Nullable String user) {
			int number = this.runs.incrementAndGet();
			if (payment.amount() < 0) {
				throw new IllegalStateException("the processor failed");
			}
			return ResponseEntity.created(URI.create("/payments/" + number))
				.header("Content-Type", "application/json")
				.body("{\"payment\":" + number + ",\"user\":\"" + user + "\",\"amount\":" + payment.amount() + "}");
		}

	}

	record Payment(int amount, @Nullable Boolean hold, @Nullable String note) {

	}

	@RestController
	static class MvcPaymentsController {

		private final Payments payments;

		MvcPaymentsController(Payments payments) {
			this.payments = payments;
		}

		@PostMapping({ "/payments", "/tips" })
		ResponseEntity<String> pay(@RequestBody Payment payment,
				@RequestHeader(name = USER, required = false) @Nullable String user) {
			if (Boolean.TRUE.equals(payment.hold())) {
				this.payments.holding.countDown();
				this.payments.release.join();
			}
			return this.payments.pay(payment, user);
		}

	}

	/**
	 * A handler that answers later, on another thread, on both stacks.
	 */
	@RestController
	static class LaterPaymentsController {

		private final Payments payments;

		LaterPaymentsController(Payments payments) {
			this.payments = payments;
		}

		@PostMapping("/payments/later")
		CompletableFuture<ResponseEntity<String>> pay(@RequestBody Payment payment) {
			return CompletableFuture.supplyAsync(() -> this.payments.pay(payment, null));
		}

	}

	@RestController
	static class WebFluxPaymentsController {

		private final Payments payments;

		WebFluxPaymentsController(Payments payments) {
			this.payments = payments;
		}

		@PostMapping({ "/payments", "/tips" })
		Mono<ResponseEntity<String>> pay(@RequestBody Payment payment,
				@RequestHeader(name = USER, required = false) @Nullable String user) {
			// the future is shared: a cancelled request must not cancel it
			Mono<Void> held = Boolean.TRUE.equals(payment.hold()) ? Mono.fromRunnable(this.payments.holding::countDown)
				.then(Mono.fromFuture(this.payments.release, true)) : Mono.empty();
			return held.then(Mono.fromSupplier(() -> this.payments.pay(payment, user)));
		}

	}

	/**
	 * Authenticates a request as the user its header names, where Spring Security's
	 * filter chain would ({@code -100}, before the idempotency filter).
	 */
	static class MvcPrincipalFromHeader extends OncePerRequestFilter implements Ordered {

		@Override
		protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
				throws ServletException, IOException {
			String user = request.getHeader(USER);
			if (user == null) {
				chain.doFilter(request, response);
				return;
			}
			Principal principal = () -> user;
			chain.doFilter(new HttpServletRequestWrapper(request) {

				@Override
				public Principal getUserPrincipal() {
					return principal;
				}

			}, response);
		}

		@Override
		public int getOrder() {
			return -100;
		}

	}

	/**
	 * The same as {@link MvcPrincipalFromHeader}, on WebFlux.
	 */
	static class WebFluxPrincipalFromHeader implements WebFilter, Ordered {

		@Override
		public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
			String user = exchange.getRequest().getHeaders().getFirst(USER);
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

}
