package io.github.redkit.security;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.UUID;

import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.RedisServers;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code redkit} endpoint follows the application's actuator security: the
 * application's chain decides who may call it (401, 403), the endpoint's access decides
 * which operations exist at all.
 */
class RedkitEndpointSecurityTests {

	private final HttpClient http = HttpClient.newHttpClient();

	// the read-only tests share their application: neither changes what the other reads
	private static @Nullable ConfigurableApplicationContext readOnly;

	@AfterAll
	static void close() {
		if (readOnly != null) {
			readOnly.close();
		}
	}

	@Test
	void anonymousIsUnauthorizedAWrongRoleIsForbiddenTheRightRoleReads() throws Exception {
		String base = base(readOnly());
		assertThat(send(get(base), null).statusCode()).isEqualTo(401);
		assertThat(send(get(base), "dev").statusCode()).isEqualTo(403);
		HttpResponse<String> summary = send(get(base), "ops");
		assertThat(summary.statusCode()).isEqualTo(200);
		assertThat(summary.body()).contains("\"access\":\"read-only\"");
		assertThat(send(get(base + "/ratelimits/api/user-1"), "ops").body()).contains("\"used\":1");
	}

	@Test
	void readOnlyAccessRefusesWritesEvenToTheRightRole() throws Exception {
		String base = base(readOnly());
		HttpResponse<String> reset = send(delete(base + "/ratelimits/api/user-1"), "ops");
		assertThat(reset.statusCode()).isBetween(400, 499);
		assertThat(send(get(base + "/ratelimits/api/user-1"), "ops").body()).as("nothing was reset")
			.contains("\"used\":1");
	}

	@Test
	void unrestrictedAccessWritesForTheRightRoleOnly() throws Exception {
		try (ConfigurableApplicationContext context = start("unrestricted")) {
			String base = base(context);
			assertThat(send(delete(base + "/ratelimits/api/user-1"), null).statusCode()).isEqualTo(401);
			assertThat(send(delete(base + "/ratelimits/api/user-1"), "dev").statusCode()).isEqualTo(403);
			HttpResponse<String> reset = send(delete(base + "/ratelimits/api/user-1"), "ops");
			assertThat(reset.statusCode()).isEqualTo(200);
			assertThat(reset.body()).isEqualTo("{\"reset\":true}");
			HttpResponse<String> replay = send(HttpRequest.newBuilder(URI.create(base + "/queues/jobs/dead-letters"))
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString("{}")), "ops");
			assertThat(replay.statusCode()).isEqualTo(200);
			assertThat(replay.body()).isEqualTo("{\"replayed\":0}");
		}
	}

	private static ConfigurableApplicationContext readOnly() {
		if (readOnly == null) {
			readOnly = start("read-only");
		}
		return readOnly;
	}

	private static ConfigurableApplicationContext start(String access) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET)
			.properties(RedisServers.standalone().springProperties())
			.properties("server.port=0", "redkit.key-prefix=redkit-test-" + UUID.randomUUID(),
					"management.endpoints.web.exposure.include=redkit", "management.endpoint.redkit.access=" + access,
					"redkit.rate-limit.failure-mode=deny", "redkit.rate-limit.limits.api.windows[0].limit=5",
					"redkit.rate-limit.limits.api.windows[0].period=1h", "redkit.queue.queues.jobs.max-attempts=1")
			.run();
		// the read-only tests read this one call: an hour's window does not roll over
		// during the class, however loaded the machine. The first call may race the
		// connection (with failure-mode deny it throws, perhaps once Redis counted
		// it), so it is made on a key of its own
		RateLimiter limiter = context.getBean(RateLimiter.class);
		await().ignoreExceptions().until(() -> limiter.tryAcquire("api", "warm-up").allowed());
		assertThat(limiter.tryAcquire("api", "user-1").allowed()).isTrue();
		return context;
	}

	private static String base(ConfigurableApplicationContext context) {
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		return "http://localhost:" + port + "/actuator/redkit";
	}

	private static HttpRequest.Builder get(String uri) {
		return HttpRequest.newBuilder(URI.create(uri)).GET();
	}

	private static HttpRequest.Builder delete(String uri) {
		return HttpRequest.newBuilder(URI.create(uri)).DELETE();
	}

	private HttpResponse<String> send(HttpRequest.Builder request, String user) throws Exception {
		if (user != null) {
			String credentials = user + ":" + user + "-password";
			request.header("Authorization",
					"Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
		}
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		// the operators' chain: actuator paths need a role; actuator calls are made by
		// tools with Basic credentials, not by a browser session, so CSRF tokens are not
		// asked for on them (DELETE and POST would otherwise get 403)
		// tag::security[]
		@Bean
		SecurityFilterChain actuatorSecurity(HttpSecurity http) throws Exception {
			http.securityMatcher(EndpointRequest.toAnyEndpoint())
				.authorizeHttpRequests((requests) -> requests.requestMatchers(EndpointRequest.to("redkit"))
					.hasRole("OPS")
					.anyRequest()
					.denyAll())
				.httpBasic(Customizer.withDefaults())
				.csrf((csrf) -> csrf.ignoringRequestMatchers(EndpointRequest.toAnyEndpoint()));
			return http.build();
		}
		// end::security[]

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(
					User.withUsername("ops").password("{noop}ops-password").roles("OPS").build(),
					User.withUsername("dev").password("{noop}dev-password").roles("DEV").build());
		}

	}

}
