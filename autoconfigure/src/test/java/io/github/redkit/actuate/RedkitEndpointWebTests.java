package io.github.redkit.actuate;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.RedisServers;
import org.junit.jupiter.api.Test;

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
			// every page, to the end: the server holds other tests' keys, and a page that
			// meets its deadline under load ends early with a cursor
			StringBuilder listing = new StringBuilder();
			Map<String, String> ids = new HashMap<>();
			String cursor = "0";
			do {
				String page = send(HttpRequest
					.newBuilder(URI
						.create(base + "/locks?count=10&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8)))
					.GET()).body();
				listing.append(page);
				Matcher lock = Pattern.compile("\"id\":\"([^\"]+)\",\"key\":\"([^\"]+)\"").matcher(page);
				while (lock.find()) {
					ids.put(lock.group(2), lock.group(1));
				}
				Matcher next = Pattern.compile("\"cursor\":\"([^\"]+)\",\"complete\":false").matcher(page);
				cursor = next.find() ? next.group(1) : null;
			}
			while (cursor != null);
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
