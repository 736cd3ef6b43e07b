package io.github.redkit.benchmarks;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.github.redkit.idempotency.IdempotentStep;
import io.github.redkit.lock.DistributedLock;
import io.github.redkit.ratelimit.RateLimited;
import io.github.redkit.testsupport.RedisServer;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.WebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The small application the HTTP benchmark drives with {@code wrk}: one handler that
 * answers {@code ok}, once without Redkit and once behind each capability, on Tomcat
 * (Spring MVC) or on Netty (WebFlux). Every request carries {@code X-Id} (one of 10,000
 * clients: the rate limits' identifier) and {@code X-Seq} (unique: the lock's key, the
 * step's operation and the {@code Idempotency-Key}), and every handler reads both, so
 * that the rows differ only by Redkit's work.
 */
final class HttpApp {

	/**
	 * Far above what one machine can send: every decision is allowed, so that a row
	 * measures a decision, not a refusal.
	 */
	private static final long LIMIT = 1_000_000_000L;

	private HttpApp() {
	}

	/**
	 * Starts the application on a free port.
	 * @param redis the Redis to use
	 * @param server the server to run on
	 * @return the running application
	 */
	static ConfigurableApplicationContext start(RedisServer redis, HttpServerKind server) {
		return start(redis, server, Map.of());
	}

	/**
	 * Starts the application on a free port with some properties of its own.
	 * @param redis the Redis to use
	 * @param server the server to run on
	 * @param overrides properties set over the benchmark's
	 * @return the running application
	 */
	static ConfigurableApplicationContext start(RedisServer redis, HttpServerKind server,
			Map<String, Object> overrides) {
		return start(redis, server, overrides, null);
	}

	/**
	 * Starts the application on a free port, timing itself ({@link HttpTiming}).
	 * @param redis the Redis to use
	 * @param server the server to run on
	 * @param times where it records its times
	 * @return the running application
	 */
	static ConfigurableApplicationContext start(RedisServer redis, HttpServerKind server, InServerTimes times) {
		return start(redis, server, Map.of(), times);
	}

	private static ConfigurableApplicationContext start(RedisServer redis, HttpServerKind server,
			Map<String, Object> overrides, @Nullable InServerTimes times) {
		Map<String, Object> properties = new HashMap<>();
		properties.put("server.port", 0);
		properties.put("redkit.rate-limit.limits.one.windows[0].limit", LIMIT);
		properties.put("redkit.rate-limit.limits.one.windows[0].period", "1m");
		properties.put("redkit.rate-limit.limits.three.windows[0].limit", LIMIT);
		properties.put("redkit.rate-limit.limits.three.windows[0].period", "1s");
		properties.put("redkit.rate-limit.limits.three.windows[1].limit", LIMIT);
		properties.put("redkit.rate-limit.limits.three.windows[1].period", "1m");
		properties.put("redkit.rate-limit.limits.three.windows[2].limit", LIMIT);
		properties.put("redkit.rate-limit.limits.three.windows[2].period", "1h");
		// a decision Redis could not answer in time is a failed request (503), not an
		// allowed one that skipped Redis and looks cheap
		properties.put("redkit.rate-limit.failure-mode", "deny");
		properties.put("redkit.rate-limit.web.routes[0].path", HttpEndpoint.ROUTE.path());
		properties.put("redkit.rate-limit.web.routes[0].limit", "one");
		properties.put("redkit.rate-limit.web.routes[0].key", "header:X-Id");
		properties.put("redkit.idempotency.http.routes[0].path", HttpEndpoint.IDEMPOTENCY_KEY.path());
		properties.put("redkit.idempotency.http.anonymous", "shared");
		// the records of a run are not needed after it
		properties.put("redkit.idempotency.http.ttl", "5m");
		properties.put("redkit.idempotency.ttl", "5m");
		if (server == HttpServerKind.NETTY) {
			// Tomcat is on the class path for the servlet run: WebFlux is to run on Netty
			properties.put("spring.autoconfigure.exclude",
					"org.springframework.boot.tomcat.autoconfigure.reactive.TomcatReactiveWebServerAutoConfiguration");
		}
		properties.putAll(overrides);
		List<Class<?>> sources = new ArrayList<>(List.of(Clients.BenchmarkApplication.class,
				(server == HttpServerKind.NETTY) ? FluxEndpoints.class : MvcEndpoints.class));
		SpringApplicationBuilder application = new SpringApplicationBuilder();
		if (times != null) {
			sources.add(HttpTiming.Common.class);
			sources.add((server == HttpServerKind.NETTY) ? HttpTiming.Reactive.class : HttpTiming.Servlet.class);
			application.initializers((context) -> context.getBeanFactory().registerSingleton("inServerTimes", times));
		}
		return application.sources(sources.toArray(Class<?>[]::new))
			.web(server.type())
			.logStartupInfo(false)
			.properties(Map.of("spring.data.redis.host", RedisServer.HOST, "spring.data.redis.port", redis.port(),
					"spring.main.banner-mode", "off", "logging.level.root", "warn"))
			.properties(properties)
			.run();
	}

	/**
	 * The port the application listens on.
	 * @param context the running application
	 * @return the port
	 */
	static int port(ConfigurableApplicationContext context) {
		return webServer(context).getPort();
	}

	/**
	 * The web server's class, to show which one answered.
	 * @param context the running application
	 * @return its simple name
	 */
	static String serverName(ConfigurableApplicationContext context) {
		return webServer(context).getClass().getSimpleName();
	}

	private static WebServer webServer(ConfigurableApplicationContext context) {
		return Objects.requireNonNull(((WebServerApplicationContext) context).getWebServer(), "the web server");
	}

	/**
	 * The endpoints on Spring MVC.
	 */
	@RestController
	static class MvcEndpoints {

		@GetMapping("/plain")
		String plain(@RequestHeader("X-Id") String id, @RequestHeader("X-Seq") String seq) {
			return answer(id, seq);
		}

		@GetMapping("/limit1")
		@RateLimited(value = "one", key = "#id")
		String limit1(@RequestHeader("X-Id") String id, @RequestHeader("X-Seq") String seq) {
			return answer(id, seq);
		}

		@GetMapping("/limit3")
		@RateLimited(value = "three", key = "#id")
		String limit3(@RequestHeader("X-Id") String id, @RequestHeader("X-Seq") String seq) {
			return answer(id, seq);
		}

		@GetMapping("/lock")
		@DistributedLock(key = "'bench:' + #seq")
		String lock(@RequestHeader("X-Id") String id, @RequestHeader("X-Seq") String seq) {
			return answer(id, seq);
		}

		@GetMapping("/step")
		@IdempotentStep(operation = "#seq", step = "answer")
		String step(@RequestHeader("X-Id") String id, @RequestHeader("X-Seq") String seq) {
			return answer(id, seq);
		}

		@PostMapping("/idem")
		String idempotencyKey(@RequestHeader("X-Id") String id, @RequestHeader("X-Seq") String seq) {
			return answer(id, seq);
		}

	}

	/**
	 * The endpoints on WebFlux; the route limit's path is a plain handler, which the
	 * route filter decides for.
	 */
	@RestController
	static class FluxEndpoints {

		@GetMapping("/plain")
		Mono<String> plain(@RequestHeader("X-Id") String id, @RequestHeader("X-Seq") String seq) {
			return Mono.just(answer(id, seq));
		}

		@GetMapping("/limit1")
		@RateLimited(value = "one", key = "#id")
		Mono<String> limit1(@RequestHeader("X-Id") String id, @RequestHeader("X-Seq") String seq) {
			return Mono.just(answer(id, seq));
		}

		@GetMapping("/limit3")
		@RateLimited(value = "three", key = "#id")
		Mono<String> limit3(@RequestHeader("X-Id") String id, @RequestHeader("X-Seq") String seq) {
			return Mono.just(answer(id, seq));
		}

		@GetMapping("/route")
		Mono<String> route(@RequestHeader("X-Id") String id, @RequestHeader("X-Seq") String seq) {
			return Mono.just(answer(id, seq));
		}

		@GetMapping("/lock")
		@DistributedLock(key = "'bench:' + #seq")
		Mono<String> lock(@RequestHeader("X-Id") String id, @RequestHeader("X-Seq") String seq) {
			return Mono.just(answer(id, seq));
		}

		@GetMapping("/step")
		@IdempotentStep(operation = "#seq", step = "answer")
		Mono<String> step(@RequestHeader("X-Id") String id, @RequestHeader("X-Seq") String seq) {
			return Mono.just(answer(id, seq));
		}

		@PostMapping("/idem")
		Mono<String> idempotencyKey(@RequestHeader("X-Id") String id, @RequestHeader("X-Seq") String seq) {
			return Mono.just(answer(id, seq));
		}

	}

	// the same small answer on every row, built from what the request carried
	private static String answer(String id, String seq) {
		return (id.isEmpty() || seq.isEmpty()) ? "?" : "ok";
	}

}
