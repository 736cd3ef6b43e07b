package io.github.redkit.idempotency.web;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.idempotency.web.IdempotencyKeyHttpTests.MvcPrincipalFromHeader;
import io.github.redkit.idempotency.web.IdempotencyKeyHttpTests.WebFluxPrincipalFromHeader;
import io.github.redkit.testsupport.RedisServers;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import static io.github.redkit.idempotency.web.IdempotencyKeyHttpTests.USER;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whose key space an {@code Idempotency-Key} falls in, on a real Tomcat and a real Netty:
 * callers without a principal never share one. Requests are sent from chosen loopback
 * addresses, so that two anonymous callers are two clients.
 */
class IdempotencyKeyScopeHttpTests {

	private static final String ALICE = "127.0.0.1";

	private static final String BOB = "127.0.0.2";

	@ParameterizedTest
	@EnumSource(Stack.class)
	void twoAnonymousCallersWithTheSameKeyNeverSeeEachOthersResponse(Stack stack) throws Exception {
		try (ConfigurableApplicationContext context = stack.start()) {
			String key = UUID.randomUUID().toString();
			Answer alice = post(context, ALICE, key, Map.of());
			Answer bob = post(context, BOB, key, Map.of());
			assertThat(bob.header(REPLAYED)).as("bob is not given alice's response").isNull();
			// by default a key needs a caller
			assertThat(alice.status()).isEqualTo(403);
			assertThat(bob.status()).isEqualTo(403);
			assertThat(bob.header("content-type")).isEqualTo("application/problem+json");
			assertThat(bob.body()).contains("\"title\":\"Idempotency key without a caller\"", "\"status\":403",
					"redkit.idempotency.http.anonymous");
			assertThat(runs(context)).isZero();
		}
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void anonymousCallersMayBeScopedByTheirAddress(Stack stack) throws Exception {
		try (ConfigurableApplicationContext context = stack.start("redkit.idempotency.http.anonymous=client-address")) {
			String key = UUID.randomUUID().toString();
			Answer alice = post(context, ALICE, key, Map.of());
			Answer bob = post(context, BOB, key, Map.of());
			assertThat(alice.status()).isEqualTo(201);
			assertThat(bob.status()).isEqualTo(201);
			assertThat(bob.header(REPLAYED)).isNull();
			assertThat(bob.body()).isEqualTo("{\"payment\":2}");
			Answer again = post(context, ALICE, key, Map.of());
			assertThat(again.body()).isEqualTo(alice.body());
			assertThat(again.header(REPLAYED)).isEqualTo("true");
			assertThat(runs(context)).isEqualTo(2);
		}
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void anApplicationMayShareOneKeySpaceBetweenAnonymousCallers(Stack stack) throws Exception {
		try (ConfigurableApplicationContext context = stack.start("redkit.idempotency.http.anonymous=shared")) {
			String key = UUID.randomUUID().toString();
			Answer alice = post(context, ALICE, key, Map.of());
			Answer bob = post(context, BOB, key, Map.of());
			assertThat(bob.body()).isEqualTo(alice.body());
			assertThat(bob.header(REPLAYED)).isEqualTo("true");
			assertThat(runs(context)).isEqualTo(1);
		}
	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void aResolverBeanScopesKeysAndScopesOfTwoKindsNeverMeet(Stack stack) throws Exception {
		try (ConfigurableApplicationContext context = stack.start("test.tenant-scopes=true")) {
			String key = UUID.randomUUID().toString();
			Answer acme = post(context, BOB, key, Map.of("X-Tenant", "acme"));
			Answer globex = post(context, BOB, key, Map.of("X-Tenant", "globex"));
			assertThat(acme.status()).isEqualTo(201);
			assertThat(globex.body()).isEqualTo("{\"payment\":2}");
			assertThat(post(context, ALICE, key, Map.of("X-Tenant", "acme")).body()).isEqualTo(acme.body());
			// the user named acme is not the tenant acme
			Answer user = post(context, ALICE, key, Map.of(USER, "acme"));
			assertThat(user.body()).isEqualTo("{\"payment\":3}");
			assertThat(user.header(REPLAYED)).isNull();
			// no principal and no tenant: no scope
			assertThat(post(context, ALICE, key, Map.of()).status()).isEqualTo(403);
			assertThat(runs(context)).isEqualTo(3);
		}
	}

	private static int runs(ConfigurableApplicationContext context) {
		return context.getBean(Payments.class).runs.get();
	}

	// an HTTP/1.1 request from a chosen local address, which the JDK's client cannot send
	private static Answer post(ConfigurableApplicationContext context, String from, String key,
			Map<String, String> headers) throws IOException {
		int port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port", "0"));
		byte[] body = "{\"amount\":10}".getBytes(StandardCharsets.UTF_8);
		try (Socket socket = new Socket()) {
			socket.bind(new InetSocketAddress(from, 0));
			socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
			socket.setSoTimeout(30_000);
			StringBuilder request = new StringBuilder("POST /payments HTTP/1.1\r\nHost: 127.0.0.1:" + port
					+ "\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: " + body.length
					+ "\r\nIdempotency-Key: " + key + "\r\n");
			headers.forEach((name, value) -> request.append(name).append(": ").append(value).append("\r\n"));
			OutputStream out = socket.getOutputStream();
			out.write(request.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
			out.write(body);
			out.flush();
			return Answer.read(socket.getInputStream());
		}
	}

	static final String REPLAYED = "Idempotent-Replayed";

	record Answer(int status, Map<String, String> headers, String body) {

		@org.jspecify.annotations.Nullable
		String header(String name) {
			return this.headers.get(name.toLowerCase(Locale.ROOT));
		}

		static Answer read(InputStream in) throws IOException {
			String all = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
			int end = all.indexOf("\r\n\r\n");
			String[] lines = all.substring(0, end).split("\r\n");
			Map<String, String> headers = new LinkedHashMap<>();
			for (int i = 1; i < lines.length; i++) {
				int colon = lines[i].indexOf(':');
				headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
						lines[i].substring(colon + 1).trim());
			}
			String body = all.substring(end + 4);
			if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
				body = unchunk(body);
			}
			return new Answer(Integer.parseInt(lines[0].split(" ")[1]), headers,
					new String(body.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8));
		}

		private static String unchunk(String chunked) {
			ByteArrayOutputStream out = new ByteArrayOutputStream();
			int at = 0;
			while (true) {
				int line = chunked.indexOf("\r\n", at);
				int size = Integer.parseInt(chunked.substring(at, line).split(";")[0].trim(), 16);
				if (size == 0) {
					return out.toString(StandardCharsets.ISO_8859_1);
				}
				out.writeBytes(chunked.substring(line + 2, line + 2 + size).getBytes(StandardCharsets.ISO_8859_1));
				at = line + 2 + size + 2;
			}
		}

	}

	enum Stack {

		SERVLET(WebApplicationType.SERVLET, MvcApplication.class),

		REACTIVE(WebApplicationType.REACTIVE, WebFluxApplication.class);

		private final WebApplicationType type;

		private final Class<?> application;

		Stack(WebApplicationType type, Class<?> application) {
			this.type = type;
			this.application = application;
		}

		ConfigurableApplicationContext start(String... properties) {
			List<String> all = new ArrayList<>(List.of(RedisServers.standalone().springProperties()));
			// the reactive application's close would wait out Reactor Netty's quiet
			// period
			// of 2 s
			all.addAll(List.of("server.port=0", "spring.reactor.netty.shutdown-quiet-period=0s",
					"redkit.key-prefix=redkit-test-" + UUID.randomUUID(),
					"redkit.idempotency.http.routes[0].path=/payments"));
			all.addAll(List.of(properties));
			return new SpringApplicationBuilder(this.application).web(this.type)
				.properties(all.toArray(String[]::new))
				.run();
		}

	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.idempotency.web.none")
	@Import({ Payments.class, PaymentsController.class, MvcPrincipalFromHeader.class, TenantScopes.class })
	static class MvcApplication {

	}

	@SpringBootApplication(scanBasePackages = "io.github.redkit.idempotency.web.none")
	@Import({ Payments.class, PaymentsController.class, WebFluxPrincipalFromHeader.class, TenantScopes.class })
	static class WebFluxApplication {

	}

	static class Payments {

		final AtomicInteger runs = new AtomicInteger();

	}

	@RestController
	static class PaymentsController {

		private final Payments payments;

		PaymentsController(Payments payments) {
			this.payments = payments;
		}

		@PostMapping("/payments")
		ResponseEntity<String> pay(@RequestBody String payment) {
			return ResponseEntity.status(201).body("{\"payment\":" + this.payments.runs.incrementAndGet() + "}");
		}

	}

	/**
	 * Keys scoped by the user, or else by the tenant a trusted header names.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty("test.tenant-scopes")
	static class TenantScopes {

		// tag::scopes[]
		@Bean
		IdempotencyKeyScopeResolver idempotencyKeyScopes() {
			// the authenticated user, or else the tenant the gateway's header names
			return IdempotencyKeyScopeResolver.principal().orElse(IdempotencyKeyScopeResolver.tenantHeader("X-Tenant"));
		}
		// end::scopes[]

	}

}
