package io.github.redkit.actuate;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.pubsub.ControlState;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The endpoint over HTTP: reads work with read-only access (the default), writes are
 * refused unless {@code management.endpoint.redkit.access=unrestricted}.
 */
class RedkitEndpointWebTests {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void readOnlyAccessReadsAndRefusesWrites() throws Exception {
		try (ConfigurableApplicationContext context = start("read-only")) {
			String base = base(context);
			HttpResponse<String> summary = send(HttpRequest.newBuilder(URI.create(base)).GET());
			assertThat(summary.statusCode()).isEqualTo(200);
			assertThat(summary.body()).contains("\"api\"")
				.contains("rate-limit")
				.contains("\"access\":\"read-only\"")
				.contains(
						"\"sections\":[\"ratelimits\",\"locks\",\"queues\",\"budgets\",\"steps\",\"control\",\"activity\",\"doctor\"]");
			assertThat(send(HttpRequest.newBuilder(URI.create(base + "/steps/auction-1")).GET()).body())
				.isEqualTo("{\"operation\":\"auction-1\",\"steps\":[]}");
			assertThat(send(HttpRequest.newBuilder(URI.create(base + "/control")).GET()).body())
				.startsWith("{\"groups\":[]");
			assertThat(send(HttpRequest.newBuilder(URI.create(base + "/activity")).GET()).body())
				.contains("\"rateLimits\":{\"api\":{\"allowed\":1,\"denied\":0,\"failed\":0}}");
			HttpResponse<String> usage = send(
					HttpRequest.newBuilder(URI.create(base + "/ratelimits/api/user-1")).GET());
			assertThat(usage.statusCode()).isEqualTo(200);
			assertThat(usage.body()).contains("\"used\":1");
			// a key with '/' is read with its segments as they are (the server refuses
			// %2F)
			context.getBean(RateLimiter.class).tryAcquire("api", "tenant/7");
			assertThat(send(HttpRequest.newBuilder(URI.create(base + "/ratelimits/api/tenant/7")).GET()).body())
				.contains("\"key\":\"tenant/7\"")
				.contains("\"used\":1");
			HttpResponse<String> reset = send(
					HttpRequest.newBuilder(URI.create(base + "/ratelimits/api/user-1")).DELETE());
			assertThat(reset.statusCode()).isBetween(400, 499);
			assertThat(send(HttpRequest.newBuilder(URI.create(base + "/ratelimits/api/user-1")).GET()).body())
				.as("nothing was reset")
				.contains("\"used\":1");
		}
	}

	@Test
	void unrestrictedAccessAllowsWrites() throws Exception {
		try (ConfigurableApplicationContext context = start("unrestricted")) {
			String base = base(context);
			HttpResponse<String> reset = send(
					HttpRequest.newBuilder(URI.create(base + "/ratelimits/api/user-1")).DELETE());
			assertThat(reset.statusCode()).isEqualTo(200);
			assertThat(reset.body()).contains("\"reset\":true");
			assertThat(send(HttpRequest.newBuilder(URI.create(base + "/ratelimits/api/user-1")).GET()).body())
				.contains("\"used\":0");
			QueueTemplate queues = context.getBean(QueueTemplate.class);
			for (int i = 0; i < 2; i++) {
				queues.send("jobs", "job-" + i);
				queues.fail(queues.receive("jobs", String.class).orElseThrow(), new IllegalStateException("boom"));
			}
			String id = queues.deadLetters("jobs", 1).get(0).id();
			HttpResponse<String> one = send(HttpRequest.newBuilder(URI.create(base + "/queues/jobs/dead-letters"))
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString("{\"id\":\"" + id + "\"}")));
			assertThat(one.body()).contains("\"replayed\":1");
			// an empty body: the content type is still needed (else 415)
			HttpResponse<String> all = send(HttpRequest.newBuilder(URI.create(base + "/queues/jobs/dead-letters"))
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.noBody()));
			assertThat(all.body()).contains("\"replayed\":1");
			assertThat(queues.size("jobs")).isEqualTo(2);
			assertThat(send(HttpRequest.newBuilder(URI.create(base)).GET()).body())
				.contains("\"access\":\"unrestricted\"");
		}
	}

	@Test
	void locksWithLongKeysOrSlashesAreReleasedByTheListedId() throws Exception {
		try (ConfigurableApplicationContext context = start("unrestricted")) {
			String base = base(context);
			DistributedLocks locks = context.getBean(DistributedLocks.class);
			String hashed = "order-" + "x".repeat(200);
			for (String key : new String[] { "tenant/7/order", hashed }) {
				locks.tryLock(key, Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
			}
			List<Map<?, ?>> listing = listed(base, "locks");
			Map<String, String> ids = new HashMap<>();
			listing.forEach((lock) -> ids.put((String) lock.get("key"), (String) lock.get("id")));
			assertThat(ids).as(listing.toString()).containsKey("tenant/7/order").hasSize(2);
			for (String id : ids.values()) {
				assertThat(id).matches("[A-Za-z0-9_-]+");
				HttpResponse<String> released = send(
						HttpRequest.newBuilder(URI.create(base + "/locks/" + id)).DELETE());
				assertThat(released.statusCode()).as(id).isEqualTo(200);
				assertThat(released.body()).isEqualTo("{\"released\":true}");
			}
			assertThat(locks.tryLock("tenant/7/order", Duration.ZERO, Duration.ofSeconds(30))).isPresent();
			assertThat(locks.tryLock(hashed, Duration.ZERO, Duration.ofSeconds(30))).isPresent();
			HttpResponse<String> malformed = send(
					HttpRequest.newBuilder(URI.create(base + "/locks/" + "not%7Dan-id")).DELETE());
			assertThat(malformed.statusCode()).isEqualTo(400);
			// the dashboard releases by the id too: a key's '/' would travel as %2F,
			// which
			// the server refuses
			String page = new String(new ClassPathResource(RedkitDashboardWebExtension.PAGE).getContentAsByteArray(),
					StandardCharsets.UTF_8);
			assertThat(page).contains("'/locks' + segment(lock.id)")
				.doesNotContain("segment(lock.key)")
				.contains("segment(limit) + segments(key)");
		}
	}

	@Test
	void keysWithLoneSurrogatesAreShownAsTheApplicationPassedThem() throws Exception {
		try (ConfigurableApplicationContext context = start("read-only")) {
			String base = base(context);
			// a JSON "\ud800" reaches a key as a lone surrogate, stored as its WTF-8
			// bytes: neither '?' nor another surrogate
			List<String> keys = List.of("a\uD800", "a\uDC00", "a?", "a\uFFFD");
			DistributedLocks locks = context.getBean(DistributedLocks.class);
			keys.forEach((key) -> locks.tryLock(key, Duration.ZERO, Duration.ofSeconds(30)).orElseThrow());
			long version = context.getBean(ControlState.class).set("workers\uD800", Map.of("throttle", "10"));
			List<Object> shown = listed(base, "locks").stream().<Object>map((lock) -> lock.get("key")).toList();
			assertThat(shown).containsExactlyInAnyOrderElementsOf(keys);
			// the group shown reads its own state back
			assertThat(listed(base, "control")).singleElement().satisfies((group) -> {
				assertThat(group.get("group")).isEqualTo("workers\uD800");
				assertThat(((Number) group.get("version")).longValue()).isEqualTo(version);
				assertThat(group.get("values")).isEqualTo(Map.of("throttle", "10"));
			});
		}
	}

	// every page of a listing, to the end: the server holds other tests' keys, and a
	// page that meets its deadline under load ends early with a cursor
	private List<Map<?, ?>> listed(String base, String section) throws Exception {
		List<Map<?, ?>> listed = new ArrayList<>();
		String cursor = "0";
		do {
			String body = send(HttpRequest
				.newBuilder(URI.create(
						base + "/" + section + "?count=10&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8)))
				.GET()).body();
			Map<?, ?> page = JSON.readValue(body, Map.class);
			((List<?>) page.get(section.equals("locks") ? "locks" : "groups"))
				.forEach((entry) -> listed.add((Map<?, ?>) entry));
			cursor = Boolean.TRUE.equals(page.get("complete")) ? null : (String) page.get("cursor");
		}
		while (cursor != null);
		return listed;
	}

	private ConfigurableApplicationContext start(String access) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET)
			.properties(RedisServers.standalone().springProperties())
			.properties("server.port=0", "redkit.key-prefix=redkit-test-" + UUID.randomUUID(),
					"management.endpoints.web.exposure.include=redkit", "management.endpoint.redkit.access=" + access,
					"redkit.rate-limit.failure-mode=deny", "redkit.rate-limit.limits.api.windows[0].limit=5",
					"redkit.rate-limit.limits.api.windows[0].period=1m", "redkit.queue.queues.jobs.max-attempts=1")
			.run();
		RateLimiter limiter = context.getBean(RateLimiter.class);
		await().ignoreExceptions().until(() -> limiter.tryAcquire("api", "user-1").allowed());
		return context;
	}

	private static String base(ConfigurableApplicationContext context) {
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		return "http://localhost:" + port + "/actuator/redkit";
	}

	private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

	}

}
