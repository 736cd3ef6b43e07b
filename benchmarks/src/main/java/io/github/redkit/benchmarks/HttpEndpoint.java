package io.github.redkit.benchmarks;

import java.util.Arrays;
import java.util.List;

/**
 * The endpoints of the HTTP benchmark ({@link HttpApp}), one row each: the same handler
 * (it answers {@code ok}) with nothing of Redkit's, or with one of its capabilities in
 * front of it.
 */
enum HttpEndpoint {

	PLAIN("plain", "GET", "plain (no Redkit; reference)", true),

	LIMIT_1("limit1", "GET", "@RateLimited, 1 sliding window", true),

	LIMIT_3("limit3", "GET", "@RateLimited, 3 sliding windows", true),

	ROUTE("route", "GET", "route limit (redkit.rate-limit.web.routes), 1 window", false),

	LOCK("lock", "GET", "@DistributedLock (a new key per request)", true),

	STEP("step", "GET", "@IdempotentStep (a new operation per request)", true),

	IDEMPOTENCY_KEY("idem", "POST", "Idempotency-Key route (a new key per request)", true);

	private final String path;

	private final String method;

	private final String description;

	private final boolean onServlet;

	HttpEndpoint(String path, String method, String description, boolean onServlet) {
		this.path = path;
		this.method = method;
		this.description = description;
		this.onServlet = onServlet;
	}

	String path() {
		return "/" + this.path;
	}

	String method() {
		return this.method;
	}

	String description() {
		return this.description;
	}

	/**
	 * Whether the endpoint exists on this server: route limits are a {@code WebFilter},
	 * WebFlux only (there is no Spring MVC twin).
	 * @param server the server
	 * @return whether it can be measured there
	 */
	boolean runsOn(HttpServerKind server) {
		return server == HttpServerKind.NETTY || this.onServlet;
	}

	/**
	 * The endpoints named on the command line ({@code --endpoints=plain,limit1}); the
	 * plain one, the reference, always comes first.
	 * @param names the short names, empty for all
	 * @return the endpoints
	 */
	static List<HttpEndpoint> named(List<String> names) {
		if (names.isEmpty()) {
			return List.of(values());
		}
		for (String name : names) {
			if (Arrays.stream(values()).noneMatch((endpoint) -> endpoint.path.equals(name))) {
				throw new IllegalArgumentException("--endpoints: unknown endpoint '" + name + "'; endpoints: "
						+ Arrays.stream(values()).map((endpoint) -> endpoint.path).toList());
			}
		}
		return Arrays.stream(values())
			.filter((endpoint) -> endpoint == PLAIN || names.contains(endpoint.path))
			.toList();
	}

}
