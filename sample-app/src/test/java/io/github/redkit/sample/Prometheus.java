package io.github.redkit.sample;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Debian's {@code prometheus} server and its {@code promtool}, run by a test: a server on
 * a free loopback port that scrapes one target every second and evaluates a rule file
 * every second, asked over its HTTP API.
 */
final class Prometheus implements AutoCloseable {

	private static final JsonMapper json = JsonMapper.builder().build();

	private final HttpClient http = HttpClient.newHttpClient();

	private final Process process;

	private final String base;

	private final Path log;

	private Prometheus(Process process, int port, Path log) {
		this.process = process;
		this.base = "http://127.0.0.1:" + port;
		this.log = log;
	}

	/**
	 * Skips the test where {@code prometheus} or {@code promtool} is not installed
	 * ({@code .ci/run} installs them).
	 */
	static void assumeInstalled() {
		Assumptions.assumeTrue(onPath("prometheus") && onPath("promtool"),
				"prometheus is not installed (Debian: apt-get install prometheus; .ci/run installs it)");
	}

	private static boolean onPath(String binary) {
		String path = System.getenv("PATH");
		if (path != null) {
			for (String directory : path.split(File.pathSeparator)) {
				if (new File(directory, binary).canExecute()) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * Runs {@code promtool check rules} on a rule file.
	 * @param rules the file
	 * @return what promtool printed; the test fails unless it exits with 0
	 */
	static String checkRules(Path rules) throws Exception {
		Process promtool = new ProcessBuilder("promtool", "check", "rules", rules.toString()).redirectErrorStream(true)
			.start();
		String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(promtool.waitFor(60, TimeUnit.SECONDS)).as(output).isTrue();
		assertThat(promtool.exitValue()).as("promtool check rules %s: %s", rules, output).isZero();
		return output;
	}

	/**
	 * Runs {@code promtool test rules} on a file of rule unit tests.
	 * @param tests the file; its {@code rule_files} are found next to it
	 * @return what promtool printed; the test fails unless it exits with 0
	 */
	static String testRules(Path tests) throws Exception {
		Process promtool = new ProcessBuilder("promtool", "test", "rules", tests.getFileName().toString())
			.directory(tests.toAbsolutePath().getParent().toFile())
			.redirectErrorStream(true)
			.start();
		String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(promtool.waitFor(60, TimeUnit.SECONDS)).as(output).isTrue();
		assertThat(promtool.exitValue()).as("promtool test rules %s: %s", tests, output).isZero();
		return output;
	}

	/**
	 * Starts a server with the test's configuration ({@code prometheus/prometheus.yml} on
	 * the test class path: every second, one target) and waits for it to be ready.
	 * @param directory where its configuration, data and log go
	 * @param target the {@code host:port} of the application
	 * @param rules the rule file
	 * @return the running server
	 */
	static Prometheus start(Path directory, String target, Path rules) throws Exception {
		int port = freePort();
		String template;
		try (InputStream in = Prometheus.class.getResourceAsStream("/prometheus/prometheus.yml")) {
			assertThat(in).as("prometheus/prometheus.yml on the test class path").isNotNull();
			template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		assertThat(template).containsOnlyOnce("\"localhost:8080\"").containsOnlyOnce("- redkit-alerts.yml");
		Path config = directory.resolve("prometheus.yml");
		Files.writeString(config, template.replace("\"localhost:8080\"", "\"" + target + "\"")
			.replace("- redkit-alerts.yml", "- \"" + rules.toAbsolutePath() + "\""));
		Path log = directory.resolve("prometheus.log");
		Process process = new ProcessBuilder("prometheus", "--config.file=" + config,
				"--storage.tsdb.path=" + directory.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
				"--log.level=warn")
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		Prometheus prometheus = new Prometheus(process, port, log);
		try {
			await().atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofMillis(100))
				.untilAsserted(() -> assertThat(prometheus.ready()).as(prometheus::log).isTrue());
		}
		catch (RuntimeException | Error ex) {
			prometheus.close();
			throw ex;
		}
		return prometheus;
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
			return socket.getLocalPort();
		}
	}

	private boolean ready() {
		assertThat(this.process.isAlive()).as("prometheus exited: %s", log()).isTrue();
		try {
			return get("/-/ready").statusCode() == 200;
		}
		catch (IOException ex) {
			return false;
		}
	}

	/**
	 * An instant query.
	 * @param expression the PromQL expression
	 * @return the series it returned (the {@code data.result} array)
	 */
	List<JsonNode> query(String expression) {
		return results(api("/api/v1/query?query=" + encode(expression)).get("result"));
	}

	/**
	 * The series a selector matches now.
	 * @param selector a series selector
	 * @return their label sets
	 */
	List<JsonNode> series(String selector) {
		long now = System.currentTimeMillis() / 1000;
		return results(api("/api/v1/series?match[]=" + encode(selector) + "&start=" + (now - 300) + "&end=" + now));
	}

	/**
	 * The alerts pending or firing now.
	 * @return each alert's {@code labels}, {@code state}, {@code annotations}
	 */
	List<JsonNode> alerts() {
		return results(api("/api/v1/alerts").get("alerts"));
	}

	/**
	 * Every alerting rule loaded, with its health and last error.
	 * @return the rules
	 */
	List<JsonNode> alertingRules() {
		List<JsonNode> rules = new ArrayList<>();
		for (JsonNode group : api("/api/v1/rules?type=alert").get("groups")) {
			group.get("rules").forEach(rules::add);
		}
		return rules;
	}

	private JsonNode api(String path) {
		try {
			HttpResponse<String> response = get(path);
			assertThat(response.statusCode()).as("%s: %s", path, response.body()).isEqualTo(200);
			JsonNode body = json.readTree(response.body());
			assertThat(body.get("status").asString()).as(response.body()).isEqualTo("success");
			return body.get("data");
		}
		catch (IOException ex) {
			throw new IllegalStateException("Prometheus did not answer " + path + ": " + log(), ex);
		}
	}

	private static List<JsonNode> results(JsonNode array) {
		List<JsonNode> results = new ArrayList<>();
		array.forEach(results::add);
		return results;
	}

	private HttpResponse<String> get(String path) throws IOException {
		try {
			return this.http.send(HttpRequest.newBuilder(URI.create(this.base + path)).build(),
					HttpResponse.BodyHandlers.ofString());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IOException(ex);
		}
	}

	private static String encode(String value) {
		return URLEncoder.encode(value, StandardCharsets.UTF_8);
	}

	/** What the server logged, for a failed assertion. */
	String log() {
		try {
			return Files.readString(this.log);
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	@Override
	public void close() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.process.destroyForcibly();
		}
	}

}
