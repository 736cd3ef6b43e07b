package io.github.redkit.sample;

import java.net.http.HttpResponse;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.web.server.reactive.ReactiveWebServerFactory;

/**
 * The sample with the {@code reactive} profile runs on WebFlux, on a real port, and
 * answers a rate-limited endpoint as the Spring MVC sample does: 429 with
 * {@code Retry-After}, {@code RateLimit} and {@code RateLimit-Policy} and a
 * ProblemDetail, and the two fields on allowed calls; a route limited by configuration
 * only answers the same way.
 */
class SampleReactiveTests {

	// a policy item and a service-limit item as RateLimitHeaders writes them
	private static final String POLICY = "\"%s-10s\";q=%d;w=10(;pk=:[A-Za-z0-9+/=]+:)?(, .*)?";

	private static final String STATE = "\"%s-10s\";r=%d;t=\\d+(;pk=:[A-Za-z0-9+/=]+:)?";

	private static SampleClient app;

	@BeforeAll
	static void start() {
		app = new SampleClient("--spring.profiles.active=reactive");
	}

	@AfterAll
	static void stop() throws Exception {
		app.close();
	}

	@Test
	void runsOnWebFlux() {
		assertThat(app.bean(ReactiveWebServerFactory.class).getClass().getSimpleName())
			.isEqualTo("NettyReactiveWebServerFactory");
	}

	@Test
	void aRateLimitedMonoAnswersAsTheServletSampleDoes() throws Exception {
		String user = "u" + UUID.randomUUID().toString().substring(0, 8);
		for (int i = 0; i < 3; i++) {
			int remaining = 2 - i;
			HttpResponse<String> ok = app.get("/api/reactive/hello?user=" + user);
			assertThat(ok.statusCode()).isEqualTo(200);
			assertThat(ok.headers().firstValue("RateLimit-Policy"))
				.hasValueSatisfying((v) -> assertThat(v).matches(POLICY.formatted("greetings", 3)));
			assertThat(ok.headers().firstValue("RateLimit"))
				.hasValueSatisfying((v) -> assertThat(v).matches(STATE.formatted("greetings", remaining)));
		}
		HttpResponse<String> refused = app.get("/api/reactive/hello?user=" + user);
		assertRefused(refused, "greetings");
	}

	@Test
	void aRouteLimitedByConfigurationAnswersTheSame() throws Exception {
		HttpResponse<String> last = null;
		for (int i = 0; i < 6; i++) {
			last = app.get("/api/reactive/ping");
			if (last.statusCode() == 429) {
				break;
			}
			assertThat(last.statusCode()).isEqualTo(200);
			assertThat(last.headers().firstValue("RateLimit-Policy"))
				.hasValueSatisfying((v) -> assertThat(v).matches(POLICY.formatted("pings", 5)));
		}
		assertRefused(last, "pings");
	}

	private static void assertRefused(HttpResponse<String> refused, String limit) {
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After"))
			.hasValueSatisfying((v) -> assertThat(Long.parseLong(v)).isPositive());
		assertThat(refused.headers().firstValue("RateLimit"))
			.hasValueSatisfying((v) -> assertThat(v).matches(STATE.formatted(limit, 0)));
		assertThat(refused.headers().firstValue("RateLimit-Policy"))
			.hasValueSatisfying((v) -> assertThat(v).matches(POLICY.formatted(limit, limit.equals("pings") ? 5 : 3)));
		assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(refused.body()).contains("\"status\":429")
			.contains("\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\"");
	}

}
