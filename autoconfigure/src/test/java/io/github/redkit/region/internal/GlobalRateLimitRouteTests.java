package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A limit marked global on a WebFlux route ({@code redkit.rate-limit.web.routes}): two
 * applications on real Netty servers, each with its own Redis as its region, share the
 * limit: the calls of each count in the other once shipped.
 */
class GlobalRateLimitRouteTests {

	@PrivateRedis
	private static RedisServer eu;

	@PrivateRedis
	private static RedisServer us;

	private final List<ConfigurableApplicationContext> regions = new ArrayList<>();

	@AfterEach
	void stop() {
		this.regions.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void theCallsOfEveryRegionCountEverywhereOnceShipped() {
		WebTestClient first = client(region("eu", eu, "us", us));
		WebTestClient second = client(region("us", us, "eu", eu));
		for (int i = 0; i < 10; i++) {
			first.get().uri("/plain").exchange().expectStatus().isOk();
		}
		first.get().uri("/plain").exchange().expectStatus().isEqualTo(429);
		// the other region refuses once the calls are shipped: before, it allows only
		// what
		// it has not seen yet, never a whole limit of its own
		AtomicInteger allowed = new AtomicInteger();
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> {
			int status = second.get().uri("/plain").exchange().returnResult(String.class).getStatus().value();
			if (status == 200) {
				allowed.incrementAndGet();
			}
			return status == 429;
		});
		assertThat(allowed).as("calls allowed in the second region").hasValueLessThan(10);
	}

	private ConfigurableApplicationContext region(String name, RedisServer own, String peer, RedisServer peerServer) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(WebFluxApplication.class)
			.web(WebApplicationType.REACTIVE)
			.properties("server.port=0", "redkit.regions.local=" + name,
					"redkit.regions.peers." + peer + ".url=redis://127.0.0.1:" + peerServer.port(),
					"redkit.regions.replication.interval=10ms", "redkit.rate-limit.limits.api.windows[0].limit=10",
					"redkit.rate-limit.limits.api.windows[0].period=1h", "redkit.rate-limit.limits.api.global=true",
					"redkit.rate-limit.web.routes[0].path=/plain", "redkit.rate-limit.web.routes[0].limit=api",
					"redkit.rate-limit.web.routes[0].key=none")
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

	@SpringBootApplication(scanBasePackages = "io.github.redkit.region.none")
	@Import(Plain.class)
	static class WebFluxApplication {

	}

	@RestController
	static class Plain {

		@GetMapping("/plain")
		String plain() {
			return "ok";
		}

	}

}
