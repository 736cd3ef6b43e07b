package io.github.redkit.idempotency.web;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.util.Map;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.idempotency.ReactiveIdempotentSteps;
import io.github.redkit.idempotency.StepClaim;
import io.github.redkit.testsupport.RedisServers;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.multipart.FilePart;
import org.springframework.http.server.reactive.AbstractServerHttpRequest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestPart;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code Idempotency-Key} on a real Netty server (WebFlux) with the JDK's HTTP
 * client, for what the filter's own response wrapper does not see or must not hold: a
 * response without a body (written by Spring after the chain, by the handler, or by the
 * error handling), a form or multipart body the handler binds, an event stream and a
 * response past {@code max-response-size}, which stream and are not replayed.
 */
@SpringBootTest(classes = IdempotencyKeyWebFluxTests.Application.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive", "redkit.idempotency.http.routes[0].path=/**",
				"redkit.idempotency.http.max-response-size=1KB",
				// past max-request-size (1MB), so that the filter's own bound is the one
				// met
				"spring.http.codecs.max-in-memory-size=4MB" })
class IdempotencyKeyWebFluxTests {

	private static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

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

	// the reply to a claim whose key starts with "slow-claim" waits for it
	static volatile CompletableFuture<Void> claimReply = new CompletableFuture<>();

	// the recording of a response whose key starts with "slow-record" waits for it
	static volatile CompletableFuture<Void> recordReply = new CompletableFuture<>();

	// completed when the connection of a keyed request closes, by key
	static final Map<String, CompletableFuture<Void>> CLOSED = new ConcurrentHashMap<>();

	// completed when the server sees the client of a keyed request go, by key
	static final Map<String, CompletableFuture<Void>> DEPARTED = new ConcurrentHashMap<>();

	@BeforeEach
	void reset() {
		this.handlers.reset();
		claimReply = new CompletableFuture<>();
		recordReply = new CompletableFuture<>();
	}

	@AfterEach
	void release() {
		this.handlers.release.complete(null);
		claimReply.complete(null);
		recordReply.complete(null);
	}

	@Test
	void aMonoVoidHandlerWithAResponseStatusIsRecorded() throws Exception {
		assertRecordedOnce("/accepted", 202);
	}

	@Test
	void aHandlerThatCompletesTheResponseItselfIsRecorded() throws Exception {
		assertRecordedOnce("/completed", 201);
	}

	@Test
	void anEmptyNoContentResponseIsRecorded() throws Exception {
		assertRecordedOnce("/nothing", 204);
	}

	@Test
	void anErrorAnsweredByTheErrorHandlingIsRecordedWithItsStatus() throws Exception {
		assertRecordedOnce("/refused", 402);
	}

	@Test
	void aFormIsBoundAsAModelAttributeAndAnotherFormWithTheKeyIs422() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first = send(form("/orders", key, "item=book&quantity=2"));
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.body()).isEqualTo("book x 2");
		HttpResponse<String> retry = send(form("/orders", key, "item=book&quantity=2"));
		assertThat(retry.body()).isEqualTo("book x 2");
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(send(form("/orders", key, "item=book&quantity=3")).statusCode()).isEqualTo(422);
		assertThat(this.handlers.runs.get()).isEqualTo(1);
	}

	@Test
	void aFormTheHandlerReadsAsItsRawBodyGetsItAsSentAndIsReplayed() throws Exception {
		// a webhook receiver checks a signature over the bytes as sent
		assertRawFormEchoedOnce("/raw");
	}

	@Test
	void aFormAFunctionalHandlerReadsAsAStringGetsItAsSentAndIsReplayed() throws Exception {
		assertRawFormEchoedOnce("/functional/raw");
	}

	@Test
	void aFormAFunctionalHandlerReadsAsFormDataIsBound() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first = send(form("/functional/fields", key, "item=book&quantity=2"));
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.body()).isEqualTo("{item=[book], quantity=[2]}");
		assertThat(send(form("/functional/fields", key, "item=book&quantity=2")).headers()
			.firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(this.handlers.runs.get()).isEqualTo(1);
	}

	private void assertRawFormEchoedOnce(String path) throws Exception {
		String key = UUID.randomUUID().toString();
		// parsed and encoded again, %20 would be '+': the handler gets the bytes as sent
		String form = "item=book&note=gift%20wrap";
		HttpResponse<String> first = send(form(path, key, form));
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.body()).isEqualTo(form);
		HttpResponse<String> retry = send(form(path, key, form));
		assertThat(retry.statusCode()).isEqualTo(200);
		assertThat(retry.body()).isEqualTo(form);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(send(form(path, key, "item=book&note=none")).statusCode()).isEqualTo(422);
		assertThat(this.handlers.runs.get()).isEqualTo(1);
	}

	@Test
	void aFormPastTheMaxRequestSizeIs413() throws Exception {
		String form = "item=" + "x".repeat(1024 * 1024 + 1);
		HttpResponse<String> response = send(form("/orders", UUID.randomUUID().toString(), form));
		assertThat(response.statusCode()).isEqualTo(413);
		assertThat(response.body()).contains("redkit.idempotency.http.max-request-size");
		assertThat(this.handlers.runs.get()).isZero();
	}

	@Test
	void aHandlersOwnBufferLimitErrorGivesTheKeyUpAndIsNotRequestTooLarge() throws Exception {
		// the handler bounds what it buffers from a source of its own: its error carries
		// no status, like any other
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first = send(post("/downstream", key).build());
		assertThat(first.statusCode()).as("the error handling's answer").isEqualTo(500);
		assertThat(first.body()).doesNotContain("max-request-size");
		HttpResponse<String> retry = send(post("/downstream", key).build());
		assertThat(retry.statusCode()).as("the retry runs again").isEqualTo(500);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
		assertThat(this.handlers.runs.get()).isEqualTo(2);
	}

	@Test
	void aMultipartUploadIsBound() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first = send(multipart("/uploads", key, "receipt", "line one\nline two"));
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.body()).isEqualTo("receipt: line one\nline two");
		HttpResponse<String> retry = send(multipart("/uploads", key, "receipt", "line one\nline two"));
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(send(multipart("/uploads", key, "receipt", "another")).statusCode()).isEqualTo(422);
		assertThat(this.handlers.runs.get()).isEqualTo(1);
	}

	@Test
	void anEventStreamDeliversItsFirstEventWhileTheHandlerRuns() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<InputStream> events = client
			.sendAsync(post("/events", key).build(), HttpResponse.BodyHandlers.ofInputStream())
			.get(10, TimeUnit.SECONDS);
		assertThat(events.statusCode()).isEqualTo(200);
		try (BufferedReader lines = new BufferedReader(new InputStreamReader(events.body(), StandardCharsets.UTF_8))) {
			assertThat(CompletableFuture.supplyAsync(() -> readLine(lines)).get(10, TimeUnit.SECONDS))
				.isEqualTo("data:first");
			assertThat(this.handlers.release.isDone()).as("the handler still runs").isFalse();
			this.handlers.release.complete(null);
			StringBuilder rest = new StringBuilder();
			for (String line = lines.readLine(); line != null; line = lines.readLine()) {
				rest.append(line).append('\n');
			}
			assertThat(rest).contains("data:second");
		}
		assertNotReplayable("/events", key);
	}

	@Test
	void aResponsePastTheLimitStreamsAndARetryIsToldItIsNotReplayable() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<InputStream> download = client
			.sendAsync(post("/downloads", key).build(), HttpResponse.BodyHandlers.ofInputStream())
			.get(10, TimeUnit.SECONDS);
		assertThat(download.statusCode()).isEqualTo(200);
		try (InputStream body = download.body()) {
			byte[] first = CompletableFuture.supplyAsync(() -> readNBytes(body, 4096)).get(10, TimeUnit.SECONDS);
			assertThat(first).hasSize(4096);
			assertThat(this.handlers.release.isDone()).as("the handler still runs").isFalse();
			this.handlers.release.complete(null);
			assertThat(body.readAllBytes()).hasSize(4096);
		}
		assertNotReplayable("/downloads", key);
	}

	@Test
	void aResponseWithinTheLimitIsStillReplayed() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first = send(post("/small", key).build());
		assertThat(first.body()).isEqualTo("x".repeat(1024));
		HttpResponse<String> retry = send(post("/small", key).build());
		assertThat(retry.statusCode()).isEqualTo(200);
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(this.handlers.runs.get()).isEqualTo(1);
	}

	@Test
	void aMultipartBoundaryPastRfc2046sLengthDoesNotHoldTheEventLoop() throws Exception {
		// a boundary of dashes against a body of dash runs each one short of it: a naive
		// search compares nearly the whole boundary at each of the body's bytes
		String boundary = "-".repeat(7800);
		String run = "-".repeat(7801) + "x";
		String body = run.repeat(900_000 / run.length());
		HttpRequest ping = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/ping")).build();
		assertThat(send(ping).body()).as("warmed up").isEqualTo("pong");
		long start = System.nanoTime();
		CompletableFuture<HttpResponse<String>> hostile = client
			.sendAsync(post("/uploads", UUID.randomUUID().toString())
				.header("Content-Type", "multipart/form-data; boundary=" + boundary)
				.POST(HttpRequest.BodyPublishers.ofString(body))
				.build(), HttpResponse.BodyHandlers.ofString());
		while (!hostile.isDone() && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(3)) {
			long sent = System.nanoTime();
			assertThat(send(ping).body()).isEqualTo("pong");
			// a quadratic boundary search froze an event loop for seconds; a loaded
			// 2-core machine answers a ping within a few hundred milliseconds
			assertThat(Duration.ofNanos(System.nanoTime() - sent)).as("another request meanwhile")
				.isLessThan(Duration.ofSeconds(1));
		}
		assertThat(hostile.get(10, TimeUnit.SECONDS).statusCode()).isBetween(400, 499);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the hostile request")
			.isLessThan(Duration.ofSeconds(3));
	}

	@Test
	void aHandlerErrorAfterTheClientLeftGivesTheKeyUp() throws Exception {
		String key = UUID.randomUUID().toString();
		sendAndLeave("/failing", key);
		// this request's own departure: a cancel of an earlier test's request, seen late,
		// would let the handler end before the server saw this client go
		departed(key).get(10, TimeUnit.SECONDS);
		this.handlers.release.complete(null);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		int status;
		do {
			status = send(post("/failing", key).build()).statusCode();
		}
		while (status == 409 && System.nanoTime() < deadline);
		assertThat(status).as("the retry runs the handler again").isEqualTo(500);
		assertThat(this.handlers.runs.get()).isEqualTo(2);
	}

	@Test
	void anErrorWithARecordedStatusAfterTheClientLeftIsReplayedToTheRetry() throws Exception {
		String key = UUID.randomUUID().toString();
		sendAndLeave("/unprocessable", key);
		departed(key).get(10, TimeUnit.SECONDS);
		this.handlers.release.complete(null);
		// within the lease (30s): the key is not held by a request that ended
		HttpResponse<String> retry = retryWhileInProgress("/unprocessable", key);
		assertThat(retry.statusCode()).as("the recorded status").isEqualTo(422);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(this.handlers.runs.get()).isEqualTo(1);
	}

	@Test
	void aResponseAfterTheClientLeftIsRecordedAndReplayedToTheRetry() throws Exception {
		String key = UUID.randomUUID().toString();
		sendAndLeave("/late", key);
		departed(key).get(10, TimeUnit.SECONDS);
		this.handlers.release.complete(null);
		HttpResponse<String> retry = retryWhileInProgress("/late", key);
		assertThat(retry.statusCode()).as("the recorded response").isEqualTo(201);
		assertThat(retry.body()).isEqualTo("created");
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(this.handlers.runs.get()).isEqualTo(1);
	}

	@Test
	void aClientThatLeftIsQuietAndItsKeyIsDecided() throws Exception {
		// what Reactor would log at ERROR ("Operator called default onErrorDropped")
		List<Throwable> dropped = new CopyOnWriteArrayList<>();
		Hooks.onErrorDropped(dropped::add);
		try {
			String failing = UUID.randomUUID().toString();
			sendAndLeave("/failing", failing);
			departed(failing).get(10, TimeUnit.SECONDS);
			String late = UUID.randomUUID().toString();
			sendAndLeave("/late", late);
			departed(late).get(10, TimeUnit.SECONDS);
			this.handlers.release.complete(null);
			// the error gave its key up: the retry runs the handler again
			assertThat(retryWhileInProgress("/failing", failing).statusCode()).isEqualTo(500);
			// the response written to the closed connection was recorded
			HttpResponse<String> retry = retryWhileInProgress("/late", late);
			assertThat(retry.statusCode()).isEqualTo(201);
			assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
			assertThat(this.handlers.runs.get()).isEqualTo(3);
			assertThat(dropped).as("errors dropped after the client left").isEmpty();
		}
		finally {
			Hooks.resetOnErrorDropped();
		}
	}

	@Test
	void aClientThatLeavesWhileItsKeyIsBeingClaimedDoesNotLeaveTheKeyHeld() throws Exception {
		String key = "slow-claim-" + UUID.randomUUID();
		sendAndLeave("/late", key);
		departed(key).get(10, TimeUnit.SECONDS);
		this.handlers.release.complete(null);
		// Redis has claimed the key; its reply comes after the client left
		claimReply.complete(null);
		HttpResponse<String> retry = retryWhileInProgress("/late", key);
		assertThat(retry.statusCode()).as("the response of the request that ran").isEqualTo(201);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(this.handlers.runs.get()).isEqualTo(1);
	}

	@Test
	void aClientThatLeavesWhileItsErrorAnswerIsBeingRecordedDoesNotLeaveTheKeyHeld() throws Exception {
		String key = "slow-record-" + UUID.randomUUID();
		this.handlers.release.complete(null);
		sendAndLeave("/unprocessable", key);
		// the error handling's answer is being recorded when the client's connection
		// closes; Redis answers after
		closed(key).get(10, TimeUnit.SECONDS);
		recordReply.complete(null);
		HttpResponse<String> retry = retryWhileInProgress("/unprocessable", key);
		assertThat(retry.statusCode()).as("the recorded status").isEqualTo(422);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(this.handlers.runs.get()).isEqualTo(1);
	}

	/**
	 * Sends a keyed request whose client gives up after 300 ms, a server still running
	 * it; the server sees it go once {@link #departed} completes for its key.
	 */
	private void sendAndLeave(String path, String key) {
		CompletableFuture<HttpResponse<String>> first = client
			.sendAsync(post(path, key).timeout(Duration.ofMillis(300)).build(), HttpResponse.BodyHandlers.ofString());
		assertThat(first).failsWithin(Duration.ofSeconds(10));
	}

	private static CompletableFuture<Void> departed(String key) {
		return DEPARTED.computeIfAbsent(key, (k) -> new CompletableFuture<>());
	}

	private static CompletableFuture<Void> closed(String key) {
		return CLOSED.computeIfAbsent(key, (k) -> new CompletableFuture<>());
	}

	private HttpResponse<String> retryWhileInProgress(String path, String key) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		HttpResponse<String> retry;
		do {
			retry = send(post(path, key).build());
		}
		while (retry.statusCode() == 409 && System.nanoTime() < deadline);
		return retry;
	}

	private void assertRecordedOnce(String path, int status) throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first = send(post(path, key).build());
		assertThat(first.statusCode()).isEqualTo(status);
		HttpResponse<String> retry = send(post(path, key).build());
		assertThat(retry.statusCode()).as("the retry is answered at once with the recorded status").isEqualTo(status);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(this.handlers.runs.get()).isEqualTo(1);
	}

	private void assertNotReplayable(String path, String key) throws Exception {
		HttpResponse<String> retry = send(post(path, key).build());
		assertThat(retry.statusCode()).isEqualTo(410);
		assertThat(retry.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(retry.body()).contains("\"title\":\"Response not replayable\"");
		assertThat(this.handlers.runs.get()).isEqualTo(1);
	}

	private HttpRequest.Builder post(String path, String key) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(Duration.ofSeconds(30))
			.header("Idempotency-Key", key)
			.POST(HttpRequest.BodyPublishers.noBody());
	}

	private HttpRequest form(String path, String key, String form) {
		return post(path, key).header("Content-Type", MediaType.APPLICATION_FORM_URLENCODED_VALUE)
			.POST(HttpRequest.BodyPublishers.ofString(form))
			.build();
	}

	private HttpRequest multipart(String path, String key, String note, String file) {
		String boundary = "redkit-" + UUID.randomUUID();
		String body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\n" + note + "\r\n--"
				+ boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"receipt.txt\"\r\n"
				+ "Content-Type: text/plain\r\n\r\n" + file + "\r\n--" + boundary + "--\r\n";
		return post(path, key).header("Content-Type", "multipart/form-data; boundary=" + boundary)
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build();
	}

	private static HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
		return client.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private static @Nullable String readLine(BufferedReader lines) {
		try {
			return lines.readLine();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static byte[] readNBytes(InputStream in, int count) {
		try {
			return in.readNBytes(count);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.idempotency.web.none")
	@Import({ Handlers.class, Authenticated.class, Departures.class })
	static class Application {

		@Bean
		static BeanPostProcessor slowClaims() {
			return new BeanPostProcessor() {

				@Override
				public Object postProcessAfterInitialization(Object bean, String name) {
					return (bean instanceof ReactiveIdempotentSteps steps) ? slowClaims(steps) : bean;
				}

			};
		}

		private static ReactiveIdempotentSteps slowClaims(ReactiveIdempotentSteps steps) {
			return (ReactiveIdempotentSteps) Proxy.newProxyInstance(Application.class.getClassLoader(),
					new Class<?>[] { ReactiveIdempotentSteps.class }, (proxy, method, args) -> {
						Object result;
						try {
							result = method.invoke(steps, args);
						}
						catch (InvocationTargetException ex) {
							throw ex.getCause();
						}
						if (method.getName().equals("claim") && args.length == 6
								&& ((String) args[0]).contains("slow-claim")) {
							return ((Mono<?>) result).delayUntil((claim) -> Mono.fromFuture(claimReply, true));
						}
						if (method.getName().equals("complete") && args[0] instanceof StepClaim claim
								&& claim.operation().contains("slow-record")) {
							return Mono.fromFuture(recordReply, true).then((Mono<?>) result);
						}
						return result;
					});
		}

	}

	record Order(String item, int quantity) {

	}

	@RestController
	static class Handlers {

		final AtomicInteger runs = new AtomicInteger();

		volatile CompletableFuture<Void> release = new CompletableFuture<>();

		void reset() {
			this.runs.set(0);
			this.release = new CompletableFuture<>();
		}

		@GetMapping("/ping")
		Mono<String> ping() {
			return Mono.just("pong");
		}

		@PostMapping("/failing")
		Mono<String> failing() {
			this.runs.incrementAndGet();
			return Mono.fromFuture(this.release, true).then(Mono.error(new IllegalStateException("failed")));
		}

		@PostMapping("/unprocessable")
		Mono<String> unprocessable() {
			this.runs.incrementAndGet();
			return Mono.fromFuture(this.release, true)
				.then(Mono.error(new ResponseStatusException(HttpStatus.UNPROCESSABLE_ENTITY, "refused")));
		}

		@PostMapping("/late")
		Mono<ResponseEntity<String>> late() {
			this.runs.incrementAndGet();
			return Mono.fromFuture(this.release, true)
				.then(Mono.fromSupplier(() -> ResponseEntity.status(HttpStatus.CREATED).body("created")));
		}

		@PostMapping("/raw")
		Mono<String> raw(ServerWebExchange exchange) {
			this.runs.incrementAndGet();
			return DataBufferUtils.join(exchange.getRequest().getBody()).map((buffer) -> {
				String body = buffer.toString(StandardCharsets.UTF_8);
				DataBufferUtils.release(buffer);
				return body;
			});
		}

		@Bean
		RouterFunction<ServerResponse> functional() {
			return RouterFunctions.route()
				.POST("/functional/raw",
						(request) -> request.bodyToMono(String.class)
							.doOnSubscribe((subscription) -> this.runs.incrementAndGet())
							.flatMap((body) -> ServerResponse.ok().bodyValue(body)))
				.POST("/functional/fields",
						(request) -> request.formData()
							.doOnSubscribe((subscription) -> this.runs.incrementAndGet())
							.flatMap((fields) -> ServerResponse.ok().bodyValue(fields.toString())))
				.build();
		}

		@PostMapping("/downstream")
		Mono<String> downstream() {
			this.runs.incrementAndGet();
			return DataBufferUtils.join(Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(new byte[100])), 10)
				.map((buffer) -> {
					DataBufferUtils.release(buffer);
					return "read";
				});
		}

		@PostMapping("/accepted")
		@ResponseStatus(HttpStatus.ACCEPTED)
		Mono<Void> accepted() {
			return Mono.fromRunnable(this.runs::incrementAndGet);
		}

		@PostMapping("/completed")
		Mono<Void> completed(ServerWebExchange exchange) {
			this.runs.incrementAndGet();
			exchange.getResponse().setStatusCode(HttpStatus.CREATED);
			return exchange.getResponse().setComplete();
		}

		@PostMapping("/nothing")
		Mono<ResponseEntity<Void>> nothing() {
			return Mono.fromSupplier(() -> {
				this.runs.incrementAndGet();
				return ResponseEntity.noContent().build();
			});
		}

		@PostMapping("/refused")
		Mono<String> refused() {
			return Mono.defer(() -> {
				this.runs.incrementAndGet();
				return Mono.error(new ResponseStatusException(HttpStatus.PAYMENT_REQUIRED, "no funds"));
			});
		}

		@PostMapping("/orders")
		Mono<String> order(@ModelAttribute Order order) {
			this.runs.incrementAndGet();
			return Mono.just(order.item() + " x " + order.quantity());
		}

		@PostMapping("/uploads")
		Mono<String> upload(@RequestPart("note") String note, @RequestPart("file") FilePart file) {
			this.runs.incrementAndGet();
			return DataBufferUtils.join(file.content()).map((buffer) -> {
				String content = buffer.toString(StandardCharsets.UTF_8);
				DataBufferUtils.release(buffer);
				return content;
			}).map((content) -> note + ": " + content);
		}

		@PostMapping(path = "/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
		Flux<String> events() {
			this.runs.incrementAndGet();
			CompletableFuture<Void> release = this.release;
			return Flux.concat(Mono.just("first"), Mono.fromFuture(release, true).thenReturn("second"));
		}

		@PostMapping(path = "/downloads", produces = MediaType.APPLICATION_OCTET_STREAM_VALUE)
		Flux<byte[]> download() {
			this.runs.incrementAndGet();
			CompletableFuture<Void> release = this.release;
			return Flux.concat(Mono.just(new byte[4096]), Mono.fromFuture(release, true).thenReturn(new byte[4096]));
		}

		@PostMapping(path = "/small", produces = MediaType.TEXT_PLAIN_VALUE)
		Mono<String> small() {
			this.runs.incrementAndGet();
			return Mono.just("x".repeat(1024));
		}

	}

	/**
	 * Tells the tests, by key, when the server saw a client leave (before the idempotency
	 * filter) and when its connection closed.
	 */
	static class Departures implements WebFilter, Ordered {

		@Override
		public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
			String key = exchange.getRequest().getHeaders().getFirst("Idempotency-Key");
			if (key != null && exchange.getRequest() instanceof AbstractServerHttpRequest request
					&& request.getNativeRequest() instanceof Connection connection) {
				connection.onDispose(() -> closed(key).complete(null));
			}
			return chain.filter(exchange).doOnCancel(() -> {
				if (key != null) {
					departed(key).complete(null);
				}
			});
		}

		@Override
		public int getOrder() {
			return -50;
		}

	}

	/**
	 * Authenticates every request, where Spring Security's filter chain would
	 * ({@code -100}, before the idempotency filter).
	 */
	static class Authenticated implements WebFilter, Ordered {

		@Override
		public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
			Principal principal = () -> "tester";
			return chain.filter(exchange.mutate().principal(Mono.just(principal)).build());
		}

		@Override
		public int getOrder() {
			return -100;
		}

	}

}
