package io.github.redkit.idempotency.web;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.testsupport.RedisServers;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A keyed response on Spring MVC that does not fit a record, on a real Tomcat with the
 * JDK's HTTP client: an event stream and a streaming body reach the client while the
 * handler still runs, a response past {@code max-response-size} streams rather than being
 * held, and a retry of either is told that its response cannot be replayed.
 */
@SpringBootTest(classes = IdempotencyKeyStreamingHttpTests.Application.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "redkit.idempotency.http.routes[0].path=/**", "redkit.idempotency.http.max-response-size=1MB",
				"redkit.idempotency.http.anonymous=shared" })
class IdempotencyKeyStreamingHttpTests {

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

	@BeforeEach
	void reset() {
		this.handlers.reset();
	}

	@AfterEach
	void release() {
		this.handlers.release.complete(null);
	}

	@Test
	void anEventStreamDeliversItsFirstEventWhileTheHandlerRuns() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<InputStream> events = client
			.sendAsync(post("/events", key), HttpResponse.BodyHandlers.ofInputStream())
			.get(10, TimeUnit.SECONDS);
		assertThat(events.statusCode()).isEqualTo(200);
		assertThat(events.headers().firstValue("Content-Type"))
			.hasValueSatisfying((type) -> assertThat(type).startsWith("text/event-stream"));
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
		assertNotReplayed(key, "/events");
	}

	@Test
	void aStreamingBodyWithinTheLimitReachesTheClientWhileTheHandlerRuns() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<InputStream> stream = client
			.sendAsync(post("/stream", key), HttpResponse.BodyHandlers.ofInputStream())
			.get(10, TimeUnit.SECONDS);
		try (InputStream body = stream.body()) {
			// much more than the server's buffers hold, less than a record: it reaches
			// the client only if the filter does not hold it
			byte[] first = CompletableFuture.supplyAsync(() -> readNBytes(body, 64 * 1024)).get(10, TimeUnit.SECONDS);
			assertThat(first).hasSize(64 * 1024);
			assertThat(this.handlers.release.isDone()).as("the handler still runs").isFalse();
			this.handlers.release.complete(null);
			assertThat(body.readAllBytes()).hasSize(256 * 1024 - 64 * 1024 + 1024);
		}
		assertNotReplayed(key, "/stream");
	}

	@Test
	void aResponsePastTheLimitStreamsAndIsNotReplayed() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<InputStream> download = client
			.sendAsync(post("/downloads", key), HttpResponse.BodyHandlers.ofInputStream())
			.get(10, TimeUnit.SECONDS);
		assertThat(download.statusCode()).isEqualTo(200);
		try (InputStream body = download.body()) {
			byte[] first = CompletableFuture.supplyAsync(() -> readNBytes(body, 1024 * 1024 + 1))
				.get(10, TimeUnit.SECONDS);
			assertThat(first).hasSize(1024 * 1024 + 1);
			assertThat(this.handlers.release.isDone()).as("the handler still runs").isFalse();
			this.handlers.release.complete(null);
			assertThat(body.readAllBytes()).hasSize(4096);
		}
		assertNotReplayed(key, "/downloads");
	}

	@Test
	void aResponseWithinTheLimitIsStillReplayed() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first = client.send(post("/small", key), HttpResponse.BodyHandlers.ofString());
		assertThat(first.body()).isEqualTo("x".repeat(1024));
		HttpResponse<String> retry = client.send(post("/small", key), HttpResponse.BodyHandlers.ofString());
		assertThat(retry.statusCode()).isEqualTo(200);
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(this.handlers.runs.get()).isEqualTo(1);
	}

	private void assertNotReplayed(String key, String path) throws Exception {
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		HttpResponse<String> retry = client.send(post(path, key), HttpResponse.BodyHandlers.ofString());
		while (retry.statusCode() == 409 && System.nanoTime() < deadline) {
			// the first request records its outcome after the client got its last byte
			retry = client.send(post(path, key), HttpResponse.BodyHandlers.ofString());
		}
		assertThat(retry.statusCode()).isEqualTo(410);
		assertThat(retry.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(retry.body()).contains("\"title\":\"Response not replayable\"");
		assertThat(this.handlers.runs.get()).isEqualTo(1);
	}

	private HttpRequest post(String path, String key) {
		return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(Duration.ofSeconds(30))
			.header("Idempotency-Key", key)
			.POST(HttpRequest.BodyPublishers.noBody())
			.build();
	}

	private static String readLine(BufferedReader lines) {
		try {
			return lines.readLine();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static byte[] readNBytes(InputStream in, int count) {
		try {
			return in.readNBytes(count);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.idempotency.web.none")
	@Import(Handlers.class)
	static class Application {

	}

	/**
	 * Handlers whose responses do not fit a record; each waits for the test before it
	 * ends.
	 */
	@RestController
	static class Handlers {

		final AtomicInteger runs = new AtomicInteger();

		volatile CompletableFuture<Void> release = new CompletableFuture<>();

		void reset() {
			this.runs.set(0);
			this.release = new CompletableFuture<>();
		}

		@PostMapping("/events")
		SseEmitter events() throws Exception {
			this.runs.incrementAndGet();
			SseEmitter emitter = new SseEmitter(30_000L);
			emitter.send(SseEmitter.event().data("first"));
			CompletableFuture<Void> release = this.release;
			CompletableFuture.runAsync(() -> {
				try {
					release.get(20, TimeUnit.SECONDS);
					emitter.send(SseEmitter.event().data("second"));
					emitter.complete();
				}
				catch (Exception ex) {
					emitter.completeWithError(ex);
				}
			});
			return emitter;
		}

		// Spring MVC does not pass a StreamingResponseBody's flush on
		// (spring.http.response.flush.enabled): what it writes reaches the client as the
		// server's buffer fills
		@PostMapping("/stream")
		StreamingResponseBody stream() {
			this.runs.incrementAndGet();
			CompletableFuture<Void> release = this.release;
			return (out) -> {
				out.write(new byte[256 * 1024]);
				out.flush();
				await(release);
				out.write(new byte[1024]);
			};
		}

		@PostMapping("/downloads")
		void download(HttpServletResponse response) throws Exception {
			this.runs.incrementAndGet();
			response.setContentType("application/octet-stream");
			response.getOutputStream().write(new byte[1024 * 1024 + 1]);
			response.flushBuffer();
			await(this.release);
			response.getOutputStream().write(new byte[4096]);
		}

		@PostMapping("/small")
		String small() {
			this.runs.incrementAndGet();
			return "x".repeat(1024);
		}

		private static void await(CompletableFuture<Void> release) {
			try {
				release.get(20, TimeUnit.SECONDS);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
