package io.github.redkit.sample;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged sample, AOT-processed at build time ({@code spring-boot:process-aot}),
 * started as its own process with {@code -Dspring.aot.enabled=true}, the way a native
 * image runs its application context: a rate limit refuses, a queue message fans a post
 * out, an idempotent step replays and a lock-guarded settlement runs, all over HTTP. The
 * jar ships no Testcontainers, and starts a {@code redis-server} process of its own when
 * no Redis answers: one start proves both, since a start of the jar is what this suite
 * costs (each about 15 s of a core), and which Redis answers changes nothing AOT froze
 * (the embedded Redis is chosen by an environment post-processor, before the context).
 */
class SampleAotModeIT {

	private static final String ADMIN = "aot-admin";

	private final HttpClient http = HttpClient.newHttpClient();

	private Process app;

	private Path log;

	@AfterEach
	void stop() {
		if (this.app != null) {
			this.app.destroy();
		}
	}

	@Test
	void theAotProcessedSampleServesEveryCapabilityInAotMode() throws Exception {
		Path jar = Path.of("target", "redkit-sample-app.jar");
		assertThat(jar).exists();
		try (ZipFile zip = new ZipFile(jar.toFile())) {
			assertThat(zip.getEntry(
					"BOOT-INF/classes/io/github/redkit/sample/SampleApplication__ApplicationContextInitializer.class"))
				.as("the jar holds the AOT-generated context initializer")
				.isNotNull();
			assertThat(zip.stream().map(ZipEntry::getName).filter((name) -> name.contains("testcontainers")))
				.as("Testcontainers stays out of the sample's jar")
				.isEmpty();
		}
		int nowhere = freePort();
		String base = start(jar, "--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + nowhere,
				// a configured Redis is waited for, never replaced, unless the
				// application opts in
				"--sample.embedded-redis-on-configured-port=true");
		assertThat(Files.readString(this.log)).contains("No Redis answers at 127.0.0.1:" + nowhere)
			.contains("using an embedded Redis");
		assertThat(get(base, "/actuator/health", null).body()).contains("\"status\":\"UP\"");
		String author = "aot_" + UUID.randomUUID().toString().substring(0, 8);
		String authorAuth = register(base, author);
		String fanAuth = register(base, "fan_" + UUID.randomUUID().toString().substring(0, 8));
		assertThat(post(base, "/api/follow/" + author, null, fanAuth).statusCode()).isEqualTo(200);
		// rate limit: 5 posts per 10 s per user
		for (int i = 0; i < 5; i++) {
			assertThat(post(base, "/api/posts", "{\"text\":\"aot " + i + "\"}", authorAuth).statusCode())
				.isEqualTo(201);
		}
		HttpResponse<String> refused = post(base, "/api/posts", "{\"text\":\"one too many\"}", authorAuth);
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("RateLimit")).isPresent();
		// queue: the fan-out worker delivers the posts to the follower's timeline
		await().atMost(Duration.ofSeconds(20))
			.until(() -> get(base, "/api/timeline", fanAuth).body().contains("aot 4"));
		// idempotent step: a repeated bid is replayed, not spent twice
		String campaign = "aot-" + UUID.randomUUID().toString().substring(0, 8);
		assertThat(post(base, "/api/campaigns", "{\"id\":\"" + campaign + "\",\"budget\":1000}", null).statusCode())
			.isEqualTo(201);
		String bid = "/api/campaigns/" + campaign + "/auctions/a1/bid";
		assertThat(post(base, bid, "{\"amount\":300}", null).body()).contains("\"remaining\":700");
		assertThat(post(base, bid, "{\"amount\":300}", null).body()).contains("\"remaining\":700");
		// lock: the settlement runs under @DistributedLock
		HttpResponse<String> settled = send(HttpRequest.newBuilder(URI.create(base + "/api/admin/settle"))
			.header("X-Admin-Token", ADMIN)
			.POST(HttpRequest.BodyPublishers.noBody()));
		assertThat(settled.statusCode()).as(settled.body()).isEqualTo(200);
		assertThat(settled.body()).contains("\"" + campaign + "\":700");
		// the dashboard, a web extension of the redkit endpoint, is served in AOT mode
		// too
		HttpResponse<String> dashboard = send(
				HttpRequest.newBuilder(URI.create(base + "/actuator/redkit")).header("Accept", "text/html").GET());
		assertThat(dashboard.statusCode()).isEqualTo(200);
		assertThat(dashboard.body()).contains("<title>Redkit dashboard</title>");
		assertThat(Files.readString(this.log)).contains("Starting AOT-processed");
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private String start(Path jar, String... redis) throws Exception {
		int port = freePort();
		this.log = Files.createTempFile("sample-aot", ".log");
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		// C1 only and the serial collector, as the build's own test JVMs: the start is
		// what this costs, and C2's compiler threads would double its CPU
		List<String> command = new ArrayList<>(
				List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Dspring.aot.enabled=true", "-jar",
						jar.toString(), "--server.port=" + port, "--sample.admin-token=" + ADMIN));
		command.addAll(List.of(redis));
		this.app = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(this.log.toFile()).start();
		String base = "http://127.0.0.1:" + port;
		await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250)).until(() -> {
			assertThat(this.app.isAlive()).as(() -> read(this.log)).isTrue();
			try {
				return get(base, "/actuator/health", null).statusCode() == 200;
			}
			catch (IOException ex) {
				return false;
			}
		});
		return base;
	}

	private String register(String base, String name) throws Exception {
		HttpResponse<String> response = post(base, "/api/register",
				"{\"name\":\"" + name + "\",\"password\":\"secret-" + name + "\"}", null);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
		return "Bearer " + SampleClient.json(response).get("secret").asString();
	}

	private HttpResponse<String> get(String base, String path, String auth) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).GET();
		if (auth != null) {
			request.header("Authorization", auth);
		}
		return send(request);
	}

	private HttpResponse<String> post(String base, String path, String body, String auth) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
			.header("Content-Type", "application/json")
			.POST((body != null) ? HttpRequest.BodyPublishers.ofString(body) : HttpRequest.BodyPublishers.noBody());
		if (auth != null) {
			request.header("Authorization", auth);
		}
		return send(request);
	}

	private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
		return this.http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
	}

	private static String read(Path log) {
		try {
			return Files.readString(log);
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

}
