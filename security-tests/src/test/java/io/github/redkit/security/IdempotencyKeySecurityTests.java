package io.github.redkit.security;

import java.io.ByteArrayOutputStream;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.cors.CorsConfiguration;
import org.springframework.web.cors.CorsConfigurationSource;
import org.springframework.web.cors.UrlBasedCorsConfigurationSource;
import org.springframework.web.multipart.MultipartFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTTP {@code Idempotency-Key} on Spring MVC behind the filters a real application
 * has in front of it: Spring Security's CSRF filter and Boot's form content filter read
 * form bodies before it, Spring Security's CORS filter writes headers before it. A real
 * Tomcat, the JDK's HTTP client, a real Redis.
 */
@SpringBootTest(classes = IdempotencyKeySecurityTests.App.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "redkit.idempotency.http.routes[0].path=/orders/**",
				"redkit.idempotency.http.routes[0].methods=POST,PATCH",
				"redkit.idempotency.http.routes[1].path=/uploads", "redkit.idempotency.http.routes[2].path=/api/**" })
class IdempotencyKeySecurityTests {

	private static final String ORIGIN = "https://shop.example";

	private final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();

	@LocalServerPort
	int port;

	@Autowired
	Orders orders;

	private String csrf;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("redkit.key-prefix", () -> "redkit-test-" + UUID.randomUUID());
		for (String property : RedisServers.standalone().springProperties()) {
			String[] pair = property.split("=", 2);
			registry.add(pair[0], () -> pair[1]);
		}
	}

	// a browser's session: the form it posts carries the session's CSRF token
	@BeforeEach
	void logIn() throws Exception {
		this.orders.runs.set(0);
		HttpResponse<String> token = send(HttpRequest.newBuilder(uri("/token")).GET());
		assertThat(token.statusCode()).isEqualTo(200);
		this.csrf = token.body();
	}

	@Test
	void aFormTheCsrfFilterReadIsFingerprintedByItsParameters() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first = form("POST", "/orders", key, Map.of("amount", "10", "_csrf", this.csrf));
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(first.body()).isEqualTo("order 1 of 10 by alice");
		HttpResponse<String> retry = form("POST", "/orders", key, Map.of("amount", "10", "_csrf", this.csrf));
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		HttpResponse<String> other = form("POST", "/orders", key, Map.of("amount", "11", "_csrf", this.csrf));
		assertThat(other.statusCode()).as("the same key with another form").isEqualTo(422);
		assertThat(this.orders.runs.get()).isEqualTo(1);
	}

	@Test
	void aFormTheFormContentFilterReadIsFingerprintedByItsParameters() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first = form("PATCH", "/orders/7", key, Map.of("amount", "10", "_csrf", this.csrf));
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.body()).isEqualTo("order 7 changed to 10");
		HttpResponse<String> other = form("PATCH", "/orders/7", key, Map.of("amount", "12", "_csrf", this.csrf));
		assertThat(other.statusCode()).as("the same key with another form").isEqualTo(422);
		assertThat(this.orders.runs.get()).isEqualTo(1);
	}

	@Test
	void aFormNoFilterReadReachesTheHandlerAndIsFingerprinted() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first = form("POST", "/api/forms", key, Map.of("amount", "10"));
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(first.body()).isEqualTo("order 1 of 10 by alice");
		assertThat(form("POST", "/api/forms", key, Map.of("amount", "11")).statusCode()).isEqualTo(422);
		assertThat(this.orders.runs.get()).isEqualTo(1);
	}

	@Test
	void aMultipartUploadIsFingerprintedByItsParts() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first = upload(key, "first file");
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(first.body()).isEqualTo("upload 1 of 10 bytes");
		HttpResponse<String> retry = upload(key, "first file");
		assertThat(retry.body()).isEqualTo(first.body());
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(upload(key, "other file").statusCode()).as("the same key with another file").isEqualTo(422);
		assertThat(this.orders.runs.get()).isEqualTo(1);
	}

	@Test
	void aReplayCarriesTheCorsHeadersOnce() throws Exception {
		String key = UUID.randomUUID().toString();
		HttpResponse<String> first = send(HttpRequest.newBuilder(uri("/api/orders"))
			.header("Idempotency-Key", key)
			.header("Origin", ORIGIN)
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"amount\":10}")));
		assertThat(first.statusCode()).isEqualTo(201);
		assertThat(first.headers().allValues("Access-Control-Allow-Origin")).containsExactly(ORIGIN);
		HttpResponse<String> retry = send(HttpRequest.newBuilder(uri("/api/orders"))
			.header("Idempotency-Key", key)
			.header("Origin", ORIGIN)
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"amount\":10}")));
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(retry.headers().allValues("Access-Control-Allow-Origin")).containsExactly(ORIGIN);
		assertThat(retry.headers().allValues("Access-Control-Expose-Headers"))
			.isEqualTo(first.headers().allValues("Access-Control-Expose-Headers"));
		assertThat(values(retry, "Vary")).doesNotHaveDuplicates().isEqualTo(values(first, "Vary"));
		assertThat(retry.headers().allValues("Location")).containsExactly("/api/orders/1");
		assertThat(this.orders.runs.get()).isEqualTo(1);
	}

	private static List<String> values(HttpResponse<?> response, String name) {
		return response.headers()
			.allValues(name)
			.stream()
			.flatMap((value) -> List.of(value.split(",")).stream())
			.map(String::trim)
			.toList();
	}

	private HttpResponse<String> form(String method, String path, String key, Map<String, String> fields)
			throws Exception {
		String body = fields.entrySet()
			.stream()
			.map((field) -> field.getKey() + "=" + URLEncoder.encode(field.getValue(), StandardCharsets.UTF_8))
			.collect(Collectors.joining("&"));
		return send(HttpRequest.newBuilder(uri(path))
			.header("Idempotency-Key", key)
			.header("Content-Type", "application/x-www-form-urlencoded")
			.method(method, HttpRequest.BodyPublishers.ofString(body)));
	}

	private HttpResponse<String> upload(String key, String content) throws Exception {
		String boundary = "redkit" + UUID.randomUUID().toString().replace("-", "");
		ByteArrayOutputStream body = new ByteArrayOutputStream();
		body.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\n" + this.csrf
				+ "\r\n--" + boundary + "\r\nContent-Disposition: form-data; name=\"amount\"\r\n\r\n10\r\n--" + boundary
				+ "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n"
				+ "Content-Type: text/plain\r\n\r\n" + content + "\r\n--" + boundary + "--\r\n")
			.getBytes(StandardCharsets.UTF_8));
		return send(HttpRequest.newBuilder(uri("/uploads"))
			.header("Idempotency-Key", key)
			.header("Content-Type", "multipart/form-data; boundary=" + boundary)
			.POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())));
	}

	private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
		request.timeout(Duration.ofSeconds(30))
			.header("Authorization", "Basic "
					+ Base64.getEncoder().encodeToString("alice:alice-password".getBytes(StandardCharsets.UTF_8)));
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ Orders.class, OrderController.class })
	static class App {

		// CSRF on for the browser's forms (the token is a form field, as a
		// server-rendered
		// form has it); the JSON API is called cross-origin with CORS
		@Bean
		SecurityFilterChain security(HttpSecurity http) throws Exception {
			http.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
				.httpBasic(Customizer.withDefaults())
				.cors(Customizer.withDefaults())
				.csrf((csrf) -> csrf.ignoringRequestMatchers("/api/**"));
			return http.build();
		}

		@Bean
		CorsConfigurationSource corsConfigurationSource() {
			CorsConfiguration cors = new CorsConfiguration();
			cors.setAllowedOrigins(List.of(ORIGIN));
			cors.setAllowedMethods(List.of("POST"));
			cors.setAllowedHeaders(List.of("*"));
			cors.setExposedHeaders(List.of("Location", "Idempotent-Replayed"));
			UrlBasedCorsConfigurationSource source = new UrlBasedCorsConfigurationSource();
			source.registerCorsConfiguration("/api/**", cors);
			return source;
		}

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(
					User.withUsername("alice").password("{noop}alice-password").roles("USER").build());
		}

	}

	static class Orders {

		final AtomicInteger runs = new AtomicInteger();

	}

	@RestController
	static class OrderController {

		private final Orders orders;

		OrderController(Orders orders) {
			this.orders = orders;
		}

		@GetMapping("/token")
		String token(CsrfToken token) {
			return token.getToken();
		}

		@PostMapping({ "/orders", "/api/forms" })
		ResponseEntity<String> order(@RequestParam int amount, java.security.Principal user) {
			int number = this.orders.runs.incrementAndGet();
			return ResponseEntity.status(201).body("order " + number + " of " + amount + " by " + user.getName());
		}

		@PatchMapping("/orders/{id}")
		String change(@PathVariable int id, @RequestParam int amount) {
			this.orders.runs.incrementAndGet();
			return "order " + id + " changed to " + amount;
		}

		@PostMapping("/uploads")
		ResponseEntity<String> upload(@RequestParam int amount, @RequestParam MultipartFile file) {
			int number = this.orders.runs.incrementAndGet();
			return ResponseEntity.status(201).body("upload " + number + " of " + file.getSize() + " bytes");
		}

		@PostMapping("/api/orders")
		ResponseEntity<String> api(@RequestBody String order) {
			int number = this.orders.runs.incrementAndGet();
			return ResponseEntity.status(201)
				.header("Location", "/api/orders/" + number)
				.header("Vary", "Accept")
				.body("{\"order\":" + number + "}");
		}

	}

}
