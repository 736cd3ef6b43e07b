package io.github.redkit.gateway;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A limit marked global behind Spring Cloud Gateway: two gateways on real Netty servers,
 * each with its own Redis as its region, share the limit: the calls of each count in the
 * other once shipped.
 */
class GatewayGlobalRateLimitTests {

	// loops of its own: closing a gateway application disposes Reactor Netty's global
	// ones
	private final LoopResources backendLoops = LoopResources.create("global-backend", 1, true);

	@PrivateRedis
	private static RedisServer eu;

	@PrivateRedis
	private static RedisServer us;

	private final List<ConfigurableApplicationContext> regions = new ArrayList<>();

	private DisposableServer backend;

	@BeforeEach
	void startBackend() {
		this.backend = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.runOn(this.backendLoops)
			.route((routes) -> routes.get("/api/hello", (request, response) -> response.sendString(Mono.just("hello"))))
			.bindNow();
	}

	@AfterEach
	void stop() {
		this.regions.forEach(ConfigurableApplicationContext::close);
		this.backend.disposeNow();
		this.backendLoops.dispose();
	}

	@Test
	void theCallsOfEveryRegionCountEverywhereOnceShipped() {
		WebTestClient first = client(region("eu", eu, "us", us));
		WebTestClient second = client(region("us", us, "eu", eu));
		for (int i = 0; i < 10; i++) {
			first.get().uri("/api/hello").exchange().expectStatus().isOk();
		}
		first.get().uri("/api/hello").exchange().expectStatus().isEqualTo(429);
		// the other region refuses once the calls are shipped: before, it allows only
		// what
		// it has not seen yet, never a whole limit of its own
		int allowed = 0;
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		int status = 200;
		while (status != 429 && System.nanoTime() - deadline < 0) {
			status = second.get().uri("/api/hello").exchange().returnResult(String.class).getStatus().value();
			allowed += (status == 200) ? 1 : 0;
		}
		assertThat(status).as("the second region refuses").isEqualTo(429);
		assertThat(allowed).as("calls allowed in the second region").isLessThan(10);
	}

	private ConfigurableApplicationContext region(String name, RedisServer own, String peer, RedisServer peerServer) {
		String routes = "spring.cloud.gateway.server.webflux.routes";
		ConfigurableApplicationContext context = new SpringApplicationBuilder(GatewayApplication.class)
			.web(WebApplicationType.REACTIVE)
			.properties("server.port=0", "redkit.regions.local=" + name,
					"redkit.regions.peers." + peer + ".url=redis://127.0.0.1:" + peerServer.port(),
					"redkit.regions.replication.interval=10ms", "redkit.rate-limit.limits.gw.windows[0].limit=10",
					"redkit.rate-limit.limits.gw.windows[0].period=1h", "redkit.rate-limit.limits.gw.global=true",
					routes + "[0].id=api", routes + "[0].uri=http://127.0.0.1:" + this.backend.port(),
					routes + "[0].predicates[0]=Path=/api/**", routes + "[0].filters[0].name=RequestRateLimiter",
					routes + "[0].filters[0].args.redkit-rate-limiter.limit=gw",
					routes + "[0].filters[0].args.key-resolver=#{@everyone}")
			.properties(own.springProperties())
			.run();
		this.regions.add(context);
		return context;
	}

	private static WebTestClient client(ConfigurableApplicationContext context) {
		String port = context.getEnvironment().getProperty("local.server.port");
		return WebTestClient.bindToServer()
			.baseUrl("http://127.0.0.1:" + port)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.gateway.none")
	static class GatewayApplication {

		@Bean
		KeyResolver everyone() {
			return (exchange) -> Mono.just("everyone");
		}

	}

}
