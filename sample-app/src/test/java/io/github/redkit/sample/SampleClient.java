package io.github.redkit.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;

import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Calls the sample over HTTP: one it starts on the shared test Redis, or the one of a
 * {@code @SpringBootTest @RedkitTest}.
 */
final class SampleClient implements AutoCloseable {

	static final String ADMIN = "test-admin";

	private static final JsonMapper json = JsonMapper.builder().build();

	private final HttpClient http = HttpClient.newHttpClient();

	private final ConfigurableApplicationContext context;

	private final String base;

	private final boolean owned;

	/**
	 * Wraps the application of a {@code @SpringBootTest}, which the test context owns.
	 */
	SampleClient(ConfigurableApplicationContext context) {
		this.context = context;
		this.base = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
		this.owned = false;
	}

	SampleClient(String... extra) {
		this(RedisServers.standalone(), new Class<?>[] { SampleApplication.class }, extra);
	}

	/** Starts the sample on a Redis of its own (a region's). */
	static SampleClient on(RedisServer server, String... extra) {
		return new SampleClient(server, new Class<?>[] { SampleApplication.class }, extra);
	}

	/** Starts the sample with a test's configuration on a Redis of its own. */
	static SampleClient on(RedisServer server, Class<?> testConfiguration, String... extra) {
		return new SampleClient(server, new Class<?>[] { SampleApplication.class, testConfiguration }, extra);
	}

	private SampleClient(RedisServer server, Class<?>[] sources, String... extra) {
		String[] redis = server.springProperties();
		String[] args = new String[4 + extra.length];
		args[0] = "--server.port=0";
		args[1] = "--" + redis[0];
		args[2] = "--" + redis[1];
		args[3] = "--sample.admin-token=" + ADMIN;
		System.arraycopy(extra, 0, args, 4, extra.length);
		this.context = SpringApplication.run(sources, args);
		this.base = "http://127.0.0.1:" + this.context.getEnvironment().getProperty("local.server.port");
		this.owned = true;
	}

	/** The application's base URL, e.g. {@code http://127.0.0.1:8080}. */
	String base() {
		return this.base;
	}

	StringRedisTemplate redis() {
		return this.context.getBean(StringRedisTemplate.class);
	}

	<T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	HttpResponse<String> get(String path, String... headers) throws Exception {
		return send(request(path, headers).GET().build());
	}

	HttpResponse<String> post(String path, String body, String... headers) throws Exception {
		return send(request(path, headers).header("Content-Type", "application/json")
			.POST((body != null) ? HttpRequest.BodyPublishers.ofString(body) : HttpRequest.BodyPublishers.noBody())
			.build());
	}

	HttpResponse<String> delete(String path, String... headers) throws Exception {
		return send(request(path, headers).DELETE().build());
	}

	static JsonNode json(HttpResponse<String> response) {
		return json.readTree(response.body());
	}

	static String uniqueName(String prefix) {
		return prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
	}

	/** Registers a user; answers the {@code Authorization} header value. */
	String register(String name) throws Exception {
		HttpResponse<String> response = post("/api/register",
				"{\"name\":\"" + name + "\",\"password\":\"secret-" + name + "\"}");
		if (response.statusCode() != 201) {
			throw new IllegalStateException(response.statusCode() + " " + response.body());
		}
		return "Bearer " + json(response).get("secret").asString();
	}

	private HttpRequest.Builder request(String path, String... headers) {
		HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(this.base + path));
		for (int i = 0; i < headers.length; i += 2) {
			builder.header(headers[i], headers[i + 1]);
		}
		return builder;
	}

	private HttpResponse<String> send(HttpRequest request) throws Exception {
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@Override
	public void close() {
		if (this.owned) {
			this.context.close();
		}
	}

}
