package io.github.redkit.gateway;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.core.web.QuotaHeaders;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.NonBlockingThreads;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.greenbytes.http.sfv.Parser;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;
import org.junit.jupiter.params.ParameterizedTest;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;
import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.gateway.filter.factory.RequestRateLimiterGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.filter.ratelimit.RedisRateLimiter;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseEntity;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * A gateway on a real Netty server, with routes to a local backend limited by
 * {@link RedkitGatewayRateLimiter} on two-window limits in a real Redis: 429 with the
 * draft-11 fields beyond the limit, the limit held over a concurrent burst, several
 * identifiers per route, the failure modes and the blocking face's meters. BlockHound
 * watches the event loops throughout.
 */
// a deadline on everything, the context's start and close included: a connection
// wedged by a blocking call fails its test instead of hanging the build
@Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = ThreadMode.SEPARATE_THREAD)
// run by the module's 'reactive' execution, whose JVM BlockHound can instrument
@Tag("blockhound")
// the gateways that reach Redis are shared by their tests, one per topology, and closed
// after the last of them: closing any gateway application disposes Reactor Netty's global
// loops, which a shared one serves on, so the tests that start their own gateway without
// Redis run first
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReactiveGatewayRateLimiterTests {

	private static final AtomicInteger backendCalls = new AtomicInteger();

	// loops of its own: closing a gateway application disposes Reactor Netty's global
	// ones
	private static final LoopResources backendLoops = LoopResources.create("backend", 1, true);

	private static DisposableServer backend;

	private static final Map<RedisTopology, ConfigurableApplicationContext> gateways = new ConcurrentHashMap<>();

	@BeforeAll
	static void startBackend() {
		NonBlockingThreads.watch();
		backend = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.runOn(backendLoops)
			.route((routes) -> routes.get("/api/hello", (request, response) -> {
				backendCalls.incrementAndGet();
				return response.sendString(Mono.just("hello"));
			}))
			.bindNow();
	}

	// the class's deadline covers its tests only: the shared gateways close here, and a
	// close wedged by a blocking call must fail too rather than hang the fork
	@AfterAll
	@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = ThreadMode.SEPARATE_THREAD)
	static void stopBackend() {
		gateways.values().forEach(ConfigurableApplicationContext::close);
		if (backend != null) {
			backend.disposeNow();
		}
		backendLoops.dispose();
	}

	@ParameterizedTest
	@RedisTopologies(exercises = Exercises.NODES)
	void refusesBeyondTheLimitWith429AndTheDraftFieldsAndCountsTheDecisions(RedisTopology topology) {
		ConfigurableApplicationContext context = gateway(topology);
		assertThat(context.getBean(RequestRateLimiterGatewayFilterFactory.class).getDefaultRateLimiter())
			.as("the gateway's RedisRateLimiter is there too, ours is the default")
			.isInstanceOf(RedkitGatewayRateLimiter.class);
		assertThat(context.getBeansOfType(RedisRateLimiter.class)).hasSize(1);
		WebTestClient client = client(context);
		String user = UUID.randomUUID().toString();
		int before = backendCalls.get();
		double allowedBefore = decisions(context, "allowed");
		double deniedBefore = decisions(context, "denied");
		for (int i = 0; i < 3; i++) {
			client.get()
				.uri("/api/hello?user=" + user)
				.exchange()
				.expectStatus()
				.isOk()
				.expectHeader()
				.doesNotExist("X-RateLimit-Remaining")
				.expectHeader()
				.valueEquals("RateLimit-Policy", policy("gw", "10s", 3, "1h", 100, user))
				.expectBody(String.class)
				.isEqualTo("hello");
		}
		HttpHeaders refused = client.get()
			.uri("/api/hello?user=" + user)
			.exchange()
			.expectStatus()
			.isEqualTo(429)
			.returnResult(Void.class)
			.getResponseHeaders();
		long retryAfter = Long.parseLong(refused.getFirst(HttpHeaders.RETRY_AFTER));
		// a sliding window may make a client wait past the current period
		assertThat(retryAfter).isBetween(1L, 20L);
		assertThat(refused.getFirst("RateLimit-Policy")).isEqualTo(policy("gw", "10s", 3, "1h", 100, user));
		assertThat(refused.getFirst("RateLimit")).startsWith("\"gw-10s\";r=0;t=")
			.endsWith(";pk=" + QuotaHeaders.partitionKey(List.of(user)));
		assertThat(backendCalls.get() - before).as("the refused request did not reach the backend").isEqualTo(3);
		assertThat(decisions(context, "allowed") - allowedBefore).isEqualTo(3);
		assertThat(decisions(context, "denied") - deniedBefore).isEqualTo(1);
	}

	@ParameterizedTest
	@RedisTopologies(exercises = Exercises.NODES)
	void holdsTheLimitOverABurstFromConcurrentClients(RedisTopology topology) {
		ConfigurableApplicationContext context = gateway(topology);
		String user = UUID.randomUUID().toString();
		WebClient client = WebClient.create("http://127.0.0.1:" + port(context));
		double allowedBefore = decisions(context, "allowed");
		List<Integer> statuses = Flux.range(0, 40)
			.flatMap((i) -> client.get()
				.uri("/api/hello?user=" + user)
				.retrieve()
				.toBodilessEntity()
				.onErrorResume(WebClientResponseException.class,
						(ex) -> Mono.just(ResponseEntity.status(ex.getStatusCode()).build()))
				.map(ResponseEntity::getStatusCode)
				.map(HttpStatusCode::value)
				.timeout(Duration.ofSeconds(30)), 8)
			.collectList()
			.block(Duration.ofSeconds(60));
		assertThat(decisions(context, "allowed") - allowedBefore)
			.as("decided by Redis, not let through by the failure mode")
			.isEqualTo(3);
		assertThat(statuses).filteredOn((status) -> status == 200).hasSize(3);
		assertThat(statuses).filteredOn((status) -> status == 429).hasSize(37);
	}

	@ParameterizedTest
	@RedisTopologies(exercises = Exercises.NODES)
	void limitsEveryIdentifierOfARouteWithSeveralKeyResolvers(RedisTopology topology) {
		ConfigurableApplicationContext context = gateway(topology);
		WebTestClient client = client(context);
		String tenant = UUID.randomUUID().toString();
		String alice = UUID.randomUUID().toString();
		String bob = UUID.randomUUID().toString();
		for (int i = 0; i < 3; i++) {
			client.get().uri("/multi/api/hello?user=" + alice + "&tenant=" + tenant).exchange().expectStatus().isOk();
		}
		client.get()
			.uri("/multi/api/hello?user=" + bob + "&tenant=" + tenant)
			.exchange()
			.expectStatus()
			.isEqualTo(429)
			.expectHeader()
			.valueEquals("RateLimit-Policy", policy("gw", "10s", 3, "1h", 100, bob, tenant));
		client.get()
			.uri("/multi/api/hello?user=" + bob + "&tenant=" + UUID.randomUUID())
			.exchange()
			.expectStatus()
			.isOk();
	}

	@Test
	@Order(1)
	void denyModeAnswersWithTheGatewaysRefusalWhenRedisIsUnreachable() {
		try (ConfigurableApplicationContext context = start("spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=1", "redkit.rate-limit.failure-mode=deny", "redkit.rate-limit.timeout=500ms")) {
			int before = backendCalls.get();
			client(context).get()
				.uri("/api/hello?user=u")
				.exchange()
				.expectStatus()
				.isEqualTo(429)
				.expectHeader()
				.valueEquals(HttpHeaders.RETRY_AFTER, "1");
			assertThat(backendCalls.get()).isEqualTo(before);
			assertThat(context.getBean(MeterRegistry.class)
				.get("redkit.ratelimit.decisions")
				.tags("limit", "gw", "outcome", "failed-closed")
				.counter()
				.count()).isEqualTo(1);
		}
	}

	@Test
	@Order(1)
	void allowModeLetsRequestsThroughWhenRedisIsUnreachable() {
		try (ConfigurableApplicationContext context = start("spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=1", "redkit.rate-limit.failure-mode=allow",
				"redkit.rate-limit.timeout=500ms")) {
			client(context).get()
				.uri("/api/hello?user=u")
				.exchange()
				.expectStatus()
				.isOk()
				.expectHeader()
				.valueEquals("RateLimit-Policy", policy("gw", "10s", 3, "1h", 100, "u"))
				.expectHeader()
				.doesNotExist("RateLimit");
			assertThat(context.getBean(MeterRegistry.class)
				.get("redkit.ratelimit.decisions")
				.tags("limit", "gw", "outcome", "failed-open")
				.counter()
				.count()).isEqualTo(1);
		}
	}

	@Test
	@Order(1)
	void localModeDecidesOnThisInstanceAndMarksTheAnswersWhenRedisIsUnreachable() {
		try (ConfigurableApplicationContext context = start("spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=1", "redkit.rate-limit.failure-mode=local",
				"redkit.rate-limit.local.expected-instances=3", "redkit.rate-limit.timeout=500ms")) {
			// 3 per 10 s on 3 instances: 1 here
			client(context).get()
				.uri("/api/hello?user=u")
				.exchange()
				.expectStatus()
				.isOk()
				.expectHeader()
				.valueEquals("Redkit-Degraded", "local")
				.expectHeader()
				.valueEquals("RateLimit-Policy", policy("gw", "10s", 1, "1h", 33, "u"));
			int before = backendCalls.get();
			client(context).get()
				.uri("/api/hello?user=u")
				.exchange()
				.expectStatus()
				.isEqualTo(429)
				.expectHeader()
				.valueEquals("Redkit-Degraded", "local");
			assertThat(backendCalls.get()).isEqualTo(before);
			assertThat(context.getBean(MeterRegistry.class)
				.get("redkit.ratelimit.decisions")
				.tags("limit", "gw", "outcome", "local-denied")
				.counter()
				.count()).isEqualTo(1);
		}
	}

	private static String policy(String limit, String shortPeriod, int shortLimit, String longPeriod, int longLimit,
			String... keys) {
		String pk = QuotaHeaders.partitionKey(List.of(keys));
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

	/**
	 * The gateway on the given topology's Redis, started by the first test that asks.
	 */
	private static ConfigurableApplicationContext gateway(RedisTopology topology) {
		return gateways.computeIfAbsent(topology, (key) -> start(key.server().springProperties()));
	}

	/**
	 * The decisions of the {@code gw} limit with the given outcome so far.
	 */
	private static double decisions(ConfigurableApplicationContext context, String outcome) {
		Counter counter = context.getBean(MeterRegistry.class)
			.find("redkit.ratelimit.decisions")
			.tags("limit", "gw", "outcome", outcome)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	private static ConfigurableApplicationContext start(String... properties) {
		String routes = "spring.cloud.gateway.server.webflux.routes";
		String uri = "http://127.0.0.1:" + backend.port();
		return new SpringApplicationBuilder(GatewayApplication.class).web(WebApplicationType.REACTIVE)
			// closing the application disposes Reactor Netty's global loops: without the
			// quiet period of 2 s that each close would wait out
			.properties("server.port=0", "spring.reactor.netty.shutdown-quiet-period=0s",
					"redkit.rate-limit.timeout=10s", "redkit.rate-limit.limits.gw.windows[0].limit=3",
					"redkit.rate-limit.limits.gw.windows[0].period=10s",
					"redkit.rate-limit.limits.gw.windows[1].limit=100",
					"redkit.rate-limit.limits.gw.windows[1].period=1h", routes + "[0].id=api",
					routes + "[0].uri=" + uri, routes + "[0].predicates[0]=Path=/api/**",
					routes + "[0].filters[0].name=RequestRateLimiter",
					routes + "[0].filters[0].args.redkit-rate-limiter.limit=gw",
					routes + "[0].filters[0].args.key-resolver=#{@userKeyResolver}", routes + "[1].id=multi",
					routes + "[1].uri=" + uri, routes + "[1].predicates[0]=Path=/multi/**",
					routes + "[1].filters[0]=StripPrefix=1", routes + "[1].filters[1].name=RequestRateLimiter",
					routes + "[1].filters[1].args.redkit-rate-limiter.limit=gw",
					routes + "[1].filters[1].args.key-resolver=#{@userAndTenantKeyResolver}")
			.properties(properties)
			.run();
	}

	private static String port(ConfigurableApplicationContext context) {
		return context.getEnvironment().getProperty("local.server.port");
	}

	private static WebTestClient client(ConfigurableApplicationContext context) {
		return WebTestClient.bindToServer()
			.baseUrl("http://127.0.0.1:" + port(context))
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.gateway.none")
	static class GatewayApplication {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		// the gateway's filter factory takes one default KeyResolver
		@Bean
		@Primary
		KeyResolver userKeyResolver() {
			return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getQueryParams().getFirst("user"));
		}

		@Bean
		KeyResolver userAndTenantKeyResolver() {
			return RedkitKeyResolvers.all(userKeyResolver(),
					(exchange) -> Mono.justOrEmpty(exchange.getRequest().getQueryParams().getFirst("tenant")));
		}

	}

}
