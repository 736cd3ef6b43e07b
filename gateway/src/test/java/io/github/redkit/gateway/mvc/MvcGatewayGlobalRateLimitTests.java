package io.github.redkit.gateway.mvc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A limit marked global behind Spring Cloud Gateway Server MVC: two gateways on real
 * Tomcat servers, each with its own Redis as its region, share the limit: the calls of
 * each count in the other once shipped.
 */
class MvcGatewayGlobalRateLimitTests {

	@PrivateRedis
	private static RedisServer eu;

	@PrivateRedis
	private static RedisServer us;

	private final List<ConfigurableApplicationContext> regions = new ArrayList<>();

	private Backend backend;

	@BeforeEach
	void startBackend() throws Exception {
		this.backend = new Backend();
	}

	@AfterEach
	void stop() {
		this.regions.forEach(ConfigurableApplicationContext::close);
		this.backend.close();
	}

	@Test
	void theCallsOfEveryRegionCountEverywhereOnceShipped() throws Exception {
		ConfigurableApplicationContext first = region("eu", eu, "us", us);
		ConfigurableApplicationContext second = region("us", us, "eu", eu);
		for (int i = 0; i < 10; i++) {
			assertThat(MvcGatewayRateLimitTests.get(first, "/api/hello").statusCode()).isEqualTo(200);
		}
		assertThat(MvcGatewayRateLimitTests.get(first, "/api/hello").statusCode()).isEqualTo(429);
		// the other region refuses once the calls are shipped: before, it allows only
		// what it has not seen yet, never a whole limit of its own
		int allowed = 0;
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		int status = 200;
		while (status != 429 && System.nanoTime() - deadline < 0) {
			status = MvcGatewayRateLimitTests.get(second, "/api/hello").statusCode();
			allowed += (status == 200) ? 1 : 0;
		}
		assertThat(status).as("the second region refuses").isEqualTo(429);
		assertThat(allowed).as("calls allowed in the second region").isLessThan(10);
	}

	private ConfigurableApplicationContext region(String name, RedisServer own, String peer, RedisServer peerServer) {
		String routes = "spring.cloud.gateway.server.webmvc.routes";
		ConfigurableApplicationContext context = new SpringApplicationBuilder(GatewayApplication.class)
			.web(WebApplicationType.SERVLET)
			.properties(MvcGatewayRateLimitTests.WITHOUT_THE_WEBFLUX_GATEWAY)
			.properties("server.port=0", "redkit.regions.local=" + name,
					"redkit.regions.peers." + peer + ".url=redis://127.0.0.1:" + peerServer.port(),
					"redkit.regions.replication.interval=10ms", "redkit.rate-limit.limits.gw.windows[0].limit=10",
					"redkit.rate-limit.limits.gw.windows[0].period=1h", "redkit.rate-limit.limits.gw.global=true",
					routes + "[0].id=api", routes + "[0].uri=" + this.backend.uri(),
					routes + "[0].predicates[0]=Path=/api/**", routes + "[0].filters[0].name=RedkitRateLimit",
					routes + "[0].filters[0].args.limits=gw", routes + "[0].filters[0].args.keys=none")
			.properties(own.springProperties())
			.run();
		this.regions.add(context);
		return context;
	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.gateway.none")
	static class GatewayApplication {

	}

}
