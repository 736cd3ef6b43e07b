package io.github.redkit.gateway.mvc;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.web.QuotaHeaders;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import org.greenbytes.http.sfv.ByteSequenceItem;
import org.greenbytes.http.sfv.ListElement;
import org.greenbytes.http.sfv.NumberItem;
import org.greenbytes.http.sfv.Parser;
import org.greenbytes.http.sfv.StringItem;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.cloud.gateway.server.mvc.filter.BeforeFilterFunctions.stripPrefix;
import static org.springframework.cloud.gateway.server.mvc.filter.BeforeFilterFunctions.uri;
import static org.springframework.cloud.gateway.server.mvc.handler.GatewayRouterFunctions.route;
import static org.springframework.cloud.gateway.server.mvc.handler.HandlerFunctions.http;

/**
 * A Server MVC gateway on a real Tomcat, with YAML and Java routes to a real backend
 * limited by {@link RedkitRateLimitFilterFunctions} on two-window limits in a real Redis,
 * driven by a real HTTP client: the fields on allowed responses, 429 with
 * {@code Retry-After} and the fields beyond the limit, the bound under a continuous
 * client, several limits and identifiers with one script call per limit, and the failure
 * modes.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = ThreadMode.SEPARATE_THREAD)
class MvcGatewayRateLimitTests {

	/**
	 * The module's tests have both gateways on their class path; an application has one.
	 * The WebFlux gateway refuses to start in a servlet application (its class-path check
	 * throws), so the Server MVC tests leave it out.
	 */
	static final String[] WITHOUT_THE_WEBFLUX_GATEWAY = { "spring.cloud.gateway.server.webflux.enabled=false",
			"spring.autoconfigure.exclude=org.springframework.cloud.gateway.config.GatewayClassPathWarningAutoConfiguration,"
					+ "org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration" };

	private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

	private static Backend backend;

	private static @Nullable ConfigurableApplicationContext application;

	@BeforeAll
	static void startBackend() throws IOException {
		backend = new Backend();
	}

	@AfterAll
	static void stopBackend() {
		if (application != null) {
			application.close();
		}
		backend.close();
	}

	/**
	 * The application the tests on the standalone server share, its counters removed: the
	 * shortcut and the log-in routes both count the client's address.
	 */
	private static ConfigurableApplicationContext shared() {
		if (application == null) {
			application = start(RedisServers.standalone().springProperties());
		}
		String prefix = application.getEnvironment().getRequiredProperty("redkit.key-prefix");
		StringRedisTemplate redis = new StringRedisTemplate(application.getBean(RedisConnectionFactory.class));
		try (Cursor<String> keys = redis.scan(ScanOptions.scanOptions().match(prefix + "*").count(1000).build())) {
			keys.forEachRemaining(redis::delete);
		}
		return application;
	}

	@Test
	void theShortcutRouteAnswersWithTheFieldsAndRefusesBeyondTheLimitWith429() throws Exception {
		ConfigurableApplicationContext context = shared();
		String pk = QuotaHeaders.partitionKey(List.of("ip:127.0.0.1"));
		int before = backend.calls();
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> allowed = get(context, "/api/hello");
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(allowed.body()).isEqualTo("hello");
			assertThat(header(allowed, "RateLimit-Policy")).isEqualTo(policy("gw", "10s", 3, "1h", 100, pk));
			List<ListElement<?>> state = Parser.parseList(header(allowed, "RateLimit")).get();
			assertThat(state).hasSize(1);
			assertThat(((StringItem) state.get(0)).get()).isEqualTo("gw-10s");
			assertThat(((NumberItem<?>) state.get(0).getParams().get("r")).getAsLong()).isEqualTo(2 - i);
			assertThat(state.get(0).getParams().get("pk")).isInstanceOf(ByteSequenceItem.class);
		}
		HttpResponse<String> refused = get(context, "/api/hello");
		assertThat(refused.statusCode()).isEqualTo(429);
		// a sliding window may make a client wait past the current period
		assertThat(Long.parseLong(header(refused, "Retry-After"))).isBetween(1L, 20L);
		assertThat(header(refused, "RateLimit-Policy")).isEqualTo(policy("gw", "10s", 3, "1h", 100, pk));
		List<ListElement<?>> state = Parser.parseList(header(refused, "RateLimit")).get();
		assertThat(((NumberItem<?>) state.get(0).getParams().get("r")).getAsLong()).isZero();
		assertThat(header(refused, "Content-Type")).startsWith("application/problem+json");
		assertThat(refused.body()).contains("\"status\":429", "\"limit\":\"gw\"", QuotaHeaders.QUOTA_EXCEEDED,
				"\"violated-policies\":[\"gw-10s\"]", "\"instance\":\"/api/hello\"");
		assertThat(backend.calls() - before).as("the refused request did not reach the backend").isEqualTo(3);
	}

	@Test
	void severalLimitsAndIdentifiersTakeOneScriptCallPerLimit() throws Exception {
		RedisServer redis = RedisServers.standalone();
		ConfigurableApplicationContext context = shared();
		String tenant = UUID.randomUUID().toString();
		CommandStats before = redis.commandStats();
		HttpResponse<String> first = get(context, "/multi/api/hello", "X-User", "alice", "X-Tenant", tenant);
		CommandStats used = redis.commandStats().since(before);
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(used.calls("evalsha") + used.calls("eval"))
			.as("two limits, two identifiers: one script each limit, %s", used)
			.isEqualTo(2);
		String alicePk = QuotaHeaders.partitionKey(List.of("header:x-user:alice", "header:x-tenant:" + tenant));
		assertThat(header(first, "RateLimit-Policy"))
			.isEqualTo(policy("gw", "10s", 3, "1h", 100, alicePk) + ", \"daily-1h\";q=5;w=3600;pk=" + alicePk);
		assertThat(Parser.parseList(header(first, "RateLimit")).get()).hasSize(2);
		for (int i = 0; i < 2; i++) {
			assertThat(get(context, "/multi/api/hello", "X-User", "alice", "X-Tenant", tenant).statusCode())
				.isEqualTo(200);
		}
		// the tenant has used up gw: another user of it is refused, of another
		// tenant allowed
		HttpResponse<String> bob = get(context, "/multi/api/hello", "X-User", "bob", "X-Tenant", tenant);
		assertThat(bob.statusCode()).isEqualTo(429);
		assertThat(bob.body()).contains("\"limit\":\"gw\"");
		// bob's refused request gave back what daily took for it: 5 - 1 left
		HttpResponse<String> other = get(context, "/multi/api/hello", "X-User", "bob", "X-Tenant", "other-" + tenant);
		assertThat(other.statusCode()).isEqualTo(200);
		assertThat(((NumberItem<?>) Parser.parseList(header(other, "RateLimit")).get().get(1).getParams().get("r"))
			.getAsLong()).isEqualTo(4);
	}

	@Test
	void aRouteThatCountsOnlyFailedLogInsGivesBackThePermitsOfEveryOtherAnswer() throws Exception {
		ConfigurableApplicationContext context = shared();
		for (int i = 0; i < 10; i++) {
			assertThat(get(context, "/login/api/login", "X-Password", "right").statusCode()).isEqualTo(200);
		}
		for (int i = 0; i < 3; i++) {
			assertThat(get(context, "/login/api/login", "X-Password", "wrong").statusCode()).isEqualTo(401);
		}
		int before = backend.calls();
		HttpResponse<String> refused = get(context, "/login/api/login", "X-Password", "right");
		assertThat(refused.statusCode()).as("three failures used up 3 per 10 s").isEqualTo(429);
		assertThat(backend.calls()).isEqualTo(before);
	}

	@Test
	void theJavaRouteLimitsWithItsOwnKeyResolver() throws Exception {
		ConfigurableApplicationContext context = shared();
		String user = UUID.randomUUID().toString();
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> allowed = get(context, "/java/api/hello", "X-User", user);
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(header(allowed, "RateLimit-Policy"))
				.isEqualTo(policy("gw", "10s", 3, "1h", 100, QuotaHeaders.partitionKey(List.of("user:" + user))));
		}
		assertThat(get(context, "/java/api/hello", "X-User", user).statusCode()).isEqualTo(429);
		assertThat(get(context, "/java/api/hello", "X-User", "x" + user).statusCode()).isEqualTo(200);
		assertThat(get(context, "/java/api/hello").statusCode()).as("no identifier").isEqualTo(403);
	}

	@Test
	void aRouteTheApplicationAnswersItselfGetsTheFieldsToo() throws Exception {
		ConfigurableApplicationContext context = shared();
		String user = UUID.randomUUID().toString();
		for (int i = 0; i < 3; i++) {
			// the handler's response has read-only headers: the proxy's has not
			HttpResponse<String> allowed = get(context, "/local/hello", "X-User", user);
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(allowed.body()).isEqualTo("hello from the gateway");
			assertThat(allowed.headers().allValues("X-Handler")).containsExactly("local");
			assertThat(header(allowed, "RateLimit-Policy"))
				.isEqualTo(policy("gw", "10s", 3, "1h", 100, QuotaHeaders.partitionKey(List.of("user:" + user))));
			assertThat(header(allowed, "RateLimit")).startsWith("\"gw-10s\";r=" + (2 - i));
		}
		assertThat(get(context, "/local/hello", "X-User", user).statusCode()).isEqualTo(429);
	}

	@Test
	void aRouteWhoseHandlerAnswersLaterGetsTheFieldsAndIsCounted() throws Exception {
		ConfigurableApplicationContext context = shared();
		String user = UUID.randomUUID().toString();
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> allowed = get(context, "/async/hello", "X-User", user);
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(allowed.body()).isEqualTo("hello later");
			assertThat(header(allowed, "RateLimit-Policy"))
				.isEqualTo(policy("gw", "10s", 3, "1h", 100, QuotaHeaders.partitionKey(List.of("user:" + user))));
			assertThat(allowed.headers().allValues("RateLimit")).hasSize(1);
			assertThat(header(allowed, "RateLimit")).startsWith("\"gw-10s\";r=" + (2 - i));
		}
		assertThat(get(context, "/async/hello", "X-User", user).statusCode()).isEqualTo(429);
		// counting 401 only: each 200 gives its permit back, however many there are
		String other = UUID.randomUUID().toString();
		for (int i = 0; i < 6; i++) {
			assertThat(get(context, "/async/401", "X-User", other).statusCode()).isEqualTo(200);
		}
	}

	@Test
	void aHandlerThatSetsTheFieldsItselfGetsTheFiltersOnly() throws Exception {
		ConfigurableApplicationContext context = shared();
		String user = UUID.randomUUID().toString();
		HttpResponse<String> allowed = get(context, "/local/own-fields", "X-User", user);
		assertThat(allowed.statusCode()).isEqualTo(200);
		assertThat(allowed.headers().allValues("RateLimit")).hasSize(1);
		assertThat(header(allowed, "RateLimit")).startsWith("\"gw-10s\";r=2");
		assertThat(allowed.headers().allValues("RateLimit-Policy"))
			.containsExactly(policy("gw", "10s", 3, "1h", 100, QuotaHeaders.partitionKey(List.of("user:" + user))));
	}

	@Test
	void anExceptionOfTheRoutesHandlerCountsAs500() throws Exception {
		ConfigurableApplicationContext context = shared();
		// counting 5xx only: each failure takes a permit, so the fourth is refused
		String user = UUID.randomUUID().toString();
		for (int i = 0; i < 3; i++) {
			assertThat(get(context, "/failing/5xx", "X-User", user).statusCode()).isEqualTo(500);
		}
		assertThat(get(context, "/failing/5xx", "X-User", user).statusCode()).isEqualTo(429);
		// counting 401 only: a failure gives its permit back, however many there are
		String other = UUID.randomUUID().toString();
		for (int i = 0; i < 6; i++) {
			assertThat(get(context, "/failing/401", "X-User", other).statusCode()).isEqualTo(500);
		}
	}

	@Test
	void holdsTheBoundUnderAContinuousClientOnSeveralThreads() throws Exception {
		ConfigurableApplicationContext context = shared();
		ExecutorService clients = Executors.newFixedThreadPool(6);
		long start = System.nanoTime();
		// 2.1 s crosses two of the window's 1 s rollovers from any phase, each a chance
		// for a permit to leak; the clients keep the machine busy for as long as they
		// run, so no longer
		long deadline = start + Duration.ofMillis(2100).toNanos();
		List<Future<int[]>> counts = new ArrayList<>();
		try {
			for (int t = 0; t < 6; t++) {
				counts.add(clients.submit(() -> {
					int[] statuses = new int[2];
					while (System.nanoTime() - deadline < 0) {
						int status = get(context, "/burst/api/hello").statusCode();
						assertThat(status).isIn(200, 429);
						statuses[(status == 200) ? 0 : 1]++;
					}
					return statuses;
				}));
			}
			int accepted = 0;
			int refused = 0;
			for (Future<int[]> count : counts) {
				int[] statuses = count.get(60, TimeUnit.SECONDS);
				accepted += statuses[0];
				refused += statuses[1];
			}
			long elapsed = System.nanoTime() - start;
			// every decision falls between the first request and the last answer:
			// cut into whole periods of 1 s, each holds at most 5
			long periods = (elapsed + 999_999_999) / 1_000_000_000;
			assertThat(accepted).as("accepted in %d ms", elapsed / 1_000_000).isBetween(5, (int) (5 * periods));
			assertThat(refused).isPositive();
		}
		finally {
			clients.shutdownNow();
		}
	}

	@Test
	void denyModeAnswers503WhenRedisIsUnreachable() throws Exception {
		try (ConfigurableApplicationContext context = start("spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=1", "redkit.rate-limit.failure-mode=deny", "redkit.rate-limit.timeout=500ms")) {
			int before = backend.calls();
			HttpResponse<String> unavailable = get(context, "/api/hello");
			assertThat(unavailable.statusCode()).isEqualTo(503);
			assertThat(Long.parseLong(header(unavailable, "Retry-After"))).isPositive();
			assertThat(unavailable.body()).contains("\"status\":503", "\"limit\":\"gw\"");
			assertThat(backend.calls()).isEqualTo(before);
		}
	}

	@Test
	void allowModeLetsRequestsThroughWhenRedisIsUnreachable() throws Exception {
		try (ConfigurableApplicationContext context = start("spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=1", "redkit.rate-limit.failure-mode=allow",
				"redkit.rate-limit.timeout=500ms")) {
			HttpResponse<String> allowed = get(context, "/api/hello");
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(allowed.body()).isEqualTo("hello");
			assertThat(header(allowed, "RateLimit-Policy"))
				.isEqualTo(policy("gw", "10s", 3, "1h", 100, QuotaHeaders.partitionKey(List.of("ip:127.0.0.1"))));
			assertThat(allowed.headers().firstValue("RateLimit")).as("nothing was counted").isEmpty();
		}
	}

	@Test
	void localModeDecidesOnThisInstanceAndMarksTheAnswersWhenRedisIsUnreachable() throws Exception {
		try (ConfigurableApplicationContext context = start("spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=1", "redkit.rate-limit.failure-mode=local",
				"redkit.rate-limit.local.expected-instances=3", "redkit.rate-limit.timeout=500ms")) {
			// 3 per 10 s on 3 instances: 1 here
			HttpResponse<String> allowed = get(context, "/api/hello");
			assertThat(allowed.statusCode()).isEqualTo(200);
			assertThat(header(allowed, "Redkit-Degraded")).isEqualTo("local");
			assertThat(header(allowed, "RateLimit-Policy"))
				.isEqualTo(policy("gw", "10s", 1, "1h", 33, QuotaHeaders.partitionKey(List.of("ip:127.0.0.1"))));
			int before = backend.calls();
			HttpResponse<String> refused = get(context, "/api/hello");
			assertThat(refused.statusCode()).isEqualTo(429);
			assertThat(header(refused, "Redkit-Degraded")).isEqualTo("local");
			assertThat(backend.calls()).isEqualTo(before);
		}
	}

	static HttpResponse<String> get(ConfigurableApplicationContext context, String path, String... headers)
			throws IOException, InterruptedException {
		HttpRequest.Builder request = HttpRequest
			.newBuilder(
					URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port") + path))
			.timeout(Duration.ofSeconds(30));
		if (headers.length > 0) {
			request.headers(headers);
		}
		return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static String header(HttpResponse<?> response, String name) {
		return response.headers().firstValue(name).orElseThrow(() -> new AssertionError("no " + name + " field"));
	}

	private static String policy(String limit, String shortPeriod, int shortLimit, String longPeriod, int longLimit,
			String pk) {
		String policy = "\"" + limit + "-" + shortPeriod + "\";q=" + shortLimit + ";w=" + seconds(shortPeriod) + ";pk="
				+ pk + ", \"" + limit + "-" + longPeriod + "\";q=" + longLimit + ";w=" + seconds(longPeriod) + ";pk="
				+ pk;
		// a check that the value is an RFC 9651 list a client can read
		assertThat(Parser.parseList(policy).get()).hasSize(2);
		return policy;
	}

	private static long seconds(String period) {
		return period.endsWith("h") ? Long.parseLong(period.replace("h", "")) * 3600
				: Long.parseLong(period.replace("s", ""));
	}

	private static ConfigurableApplicationContext start(String... properties) {
		return new SpringApplicationBuilder(MvcGatewayApplication.class).web(WebApplicationType.SERVLET)
			.properties(WITHOUT_THE_WEBFLUX_GATEWAY)
			.properties("server.port=0", "spring.config.import=classpath:mvc-gateway-routes.yml",
					"backend.uri=" + backend.uri(), "redkit.key-prefix=mvc-" + UUID.randomUUID(),
					"redkit.rate-limit.timeout=10s", "redkit.rate-limit.limits.gw.windows[0].limit=3",
					"redkit.rate-limit.limits.gw.windows[0].period=10s",
					"redkit.rate-limit.limits.gw.windows[1].limit=100",
					"redkit.rate-limit.limits.gw.windows[1].period=1h",
					"redkit.rate-limit.limits.daily.windows[0].limit=5",
					"redkit.rate-limit.limits.daily.windows[0].period=1h",
					"redkit.rate-limit.limits.burst.windows[0].limit=5",
					"redkit.rate-limit.limits.burst.windows[0].period=1s")
			.properties(properties)
			.run();
	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.gateway.none")
	static class MvcGatewayApplication {

		@Bean
		RouterFunction<ServerResponse> javaRoute(Environment environment) {
			return route("java").GET("/java/**", http())
				.before(uri(environment.getRequiredProperty("backend.uri")))
				.before(stripPrefix(1))
				.filter(RedkitRateLimitFilterFunctions.redkitRateLimit((config) -> config.setLimits(List.of("gw"))
					.setKeyResolver((request) -> request.headers()
						.header("X-User")
						.stream()
						.limit(1)
						.map((user) -> "user:" + user)
						.toList())))
				.build();
		}

		@Bean
		RouterFunction<ServerResponse> localRoute() {
			return route("local")
				.GET("/local/hello",
						(request) -> ServerResponse.ok().header("X-Handler", "local").body("hello from the gateway"))
				.GET("/local/own-fields",
						(request) -> ServerResponse.ok()
							.header("RateLimit", "x")
							.header("ratelimit-policy", "y")
							.body("fields of its own"))
				.filter(RedkitRateLimitFilterFunctions.redkitRateLimit(
						(config) -> config.setLimits(List.of("gw")).setKeyResolver(MvcGatewayApplication::user)))
				.build();
		}

		@Bean
		RouterFunction<ServerResponse> asyncRoutes() {
			return route("async").GET("/async/hello", MvcGatewayApplication::later)
				.filter(RedkitRateLimitFilterFunctions.redkitRateLimit(
						(config) -> config.setLimits(List.of("gw")).setKeyResolver(MvcGatewayApplication::user)))
				.build()
				.and(route("async-401").GET("/async/401", MvcGatewayApplication::later)
					.filter(RedkitRateLimitFilterFunctions.redkitRateLimit((config) -> config.setLimits(List.of("gw"))
						.setCountStatuses(List.of("401"))
						.setKeyResolver(MvcGatewayApplication::user)))
					.build());
		}

		// an answer the filter cannot read yet: the future completes after the handler
		// returned
		private static ServerResponse later(ServerRequest request) {
			return ServerResponse.async(CompletableFuture.supplyAsync(() -> ServerResponse.ok().body("hello later"),
					CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS)));
		}

		@Bean
		RouterFunction<ServerResponse> failingRoutes() {
			return route("failing-5xx").GET("/failing/5xx", MvcGatewayApplication::fail)
				.filter(RedkitRateLimitFilterFunctions.redkitRateLimit((config) -> config.setLimits(List.of("gw"))
					.setCountStatuses(List.of("5xx"))
					.setKeyResolver(MvcGatewayApplication::user)))
				.build()
				.and(route("failing-401").GET("/failing/401", MvcGatewayApplication::fail)
					.filter(RedkitRateLimitFilterFunctions.redkitRateLimit((config) -> config.setLimits(List.of("gw"))
						.setCountStatuses(List.of("401"))
						.setKeyResolver(MvcGatewayApplication::user)))
					.build());
		}

		private static ServerResponse fail(ServerRequest request) {
			throw new IllegalStateException("the handler failed");
		}

		private static List<String> user(ServerRequest request) {
			return request.headers().header("X-User").stream().limit(1).map((user) -> "user:" + user).toList();
		}

	}

}
