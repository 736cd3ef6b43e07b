package io.github.redkit.sample;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.sample.profile.LastSeen;
import io.github.redkit.sample.retwis.Keys;
import io.github.redkit.sample.retwis.Users;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import static io.github.redkit.test.boot.RedkitAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Retwis end to end over HTTP on a real Redis: accounts, posting, following, fan-out,
 * rate limits and refusals of bad input.
 */
@SampleApplicationTest
class SampleRetwisTests {

	private SampleClient app;

	@BeforeEach
	void wrap(@Autowired ConfigurableApplicationContext context) {
		this.app = new SampleClient(context);
	}

	@Test
	void registerLoginPostFollowAndReadTheTimeline() throws Exception {
		String alice = SampleClient.uniqueName("alice");
		String bob = SampleClient.uniqueName("bob");
		String aliceAuth = app.register(alice);
		String bobAuth = app.register(bob);
		assertThat(app.post("/api/follow/" + alice, null, "Authorization", bobAuth).statusCode()).isEqualTo(200);
		HttpResponse<String> posted = app.post("/api/posts", "{\"text\":\"hello from alice\"}", "Authorization",
				aliceAuth);
		assertThat(posted.statusCode()).isEqualTo(201);
		long postId = SampleClient.json(posted).get("id").asLong();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(app.get("/api/timeline", "Authorization", bobAuth).body())
				.contains("\"id\":" + postId)
				.contains("hello from alice"));
		assertThat(app.get("/api/timeline/global?size=50").body()).contains("hello from alice");
		assertThat(app.get("/api/users/" + alice + "/followers").body()).contains(bob);

		// the password is stored hashed
		StringRedisTemplate redis = app.redis();
		long aliceId = Long.parseLong((String) redis.opsForHash().get(Keys.USERS, alice));
		String stored = (String) redis.opsForHash().get(Keys.user(aliceId), "password");
		assertThat(stored).startsWith("pbkdf2$").doesNotContain("secret-" + alice);

		// login answers the current secret; logout rotates it
		HttpResponse<String> login = app.post("/api/login",
				"{\"name\":\"" + alice + "\",\"password\":\"secret-" + alice + "\"}");
		assertThat("Bearer " + SampleClient.json(login).get("secret").asString()).isEqualTo(aliceAuth);
		assertThat(app.post("/api/login", "{\"name\":\"" + alice + "\",\"password\":\"wrong-one\"}").statusCode())
			.isEqualTo(401);
		assertThat(app.post("/api/logout", null, "Authorization", aliceAuth).statusCode()).isEqualTo(200);
		assertThat(app.get("/api/timeline", "Authorization", aliceAuth).statusCode()).isEqualTo(401);
		HttpResponse<String> again = app.post("/api/login",
				"{\"name\":\"" + alice + "\",\"password\":\"secret-" + alice + "\"}");
		String newAuth = "Bearer " + SampleClient.json(again).get("secret").asString();
		assertThat(newAuth).isNotEqualTo(aliceAuth);
		assertThat(app.get("/api/timeline", "Authorization", newAuth).statusCode()).isEqualTo(200);

		// unfollow: the next post does not reach bob
		assertThat(app.delete("/api/follow/" + alice, "Authorization", bobAuth).statusCode()).isEqualTo(200);
		assertThat(app.get("/api/users/" + alice + "/followers").body()).doesNotContain(bob);
	}

	@Test
	void fanOutReachesEveryFollower() throws Exception {
		String author = SampleClient.uniqueName("author");
		String authorAuth = app.register(author);
		List<String> followers = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			String auth = app.register(SampleClient.uniqueName("fan" + i));
			app.post("/api/follow/" + author, null, "Authorization", auth);
			followers.add(auth);
		}
		long postId = SampleClient
			.json(app.post("/api/posts", "{\"text\":\"to all my fans\"}", "Authorization", authorAuth))
			.get("id")
			.asLong();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			for (String auth : followers) {
				assertThat(app.get("/api/timeline", "Authorization", auth).body()).contains("\"id\":" + postId);
			}
		});
		assertThat(app.get("/api/users/" + author).body()).contains("\"followers\":6");
		// the profile is cached as JSON with the profiles TTL from application.yml
		assertThat(app.redis().opsForValue().get("profiles::" + author)).contains("\"followers\":6");
		assertThat(app.redis().getExpire("profiles::" + author)).isBetween(1L, 15L);
	}

	@Test
	void lastSeenIsWrittenOnceAfterTheDelay() throws Exception {
		String name = SampleClient.uniqueName("seen");
		String auth = app.register(name);
		long id = Long.parseLong((String) app.redis().opsForHash().get(Keys.USERS, name));
		long before = System.currentTimeMillis();
		// the first touch schedules the update; repeats while it is pending collapse into
		// it
		LastSeen lastSeen = app.bean(LastSeen.class);
		assertThat(lastSeen.touch(id)).isTrue();
		assertThat(lastSeen.touch(id)).isFalse();
		assertThat(app.get("/api/timeline", "Authorization", auth).statusCode()).isEqualTo(200);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(app.redis().opsForHash().get(Keys.user(id), "lastSeen")).isNotNull());
		assertThat(Long.parseLong((String) app.redis().opsForHash().get(Keys.user(id), "lastSeen")))
			.isGreaterThanOrEqualTo(before);
	}

	@Test
	void servesTheWebPage() throws Exception {
		HttpResponse<String> page = app.get("/");
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.body()).contains("/api/posts").contains("/api/timeline");
	}

	@Test
	void postingPastTheLimitGets429WithRetryAfterAndRateLimitHeaders() throws Exception {
		String name = SampleClient.uniqueName("chatty");
		String auth = app.register(name);
		String user = "user:" + app.bean(Users.class).idOf(name);
		for (int i = 0; i < 5; i++) {
			assertThat(app.bean(RateLimiter.class)).isNotRateLimited("posts", user);
			HttpResponse<String> ok = app.post("/api/posts", "{\"text\":\"post " + i + "\"}", "Authorization", auth);
			assertThat(ok.statusCode()).isEqualTo(201);
		}
		assertThat(app.bean(RateLimiter.class)).isRateLimited("posts", user);
		HttpResponse<String> refused = app.post("/api/posts", "{\"text\":\"one too many\"}", "Authorization", auth);
		assertThat(refused.statusCode()).isEqualTo(429);
		assertThat(refused.headers().firstValue("Retry-After")).isPresent();
		assertThat(refused.headers().firstValue("RateLimit")).hasValueSatisfying((v) -> assertThat(v).contains("r=0"));
		assertThat(refused.headers().firstValue("RateLimit-Policy")).isPresent();
		assertThat(refused.body()).contains("\"status\":429");
	}

	@Test
	void badInputGetsA4xxAndChangesNothing() throws Exception {
		String auth = app.register(SampleClient.uniqueName("careful"));
		StringRedisTemplate redis = app.redis();
		String usersBefore = String.valueOf(redis.opsForHash().size(Keys.USERS));
		String userIdBefore = redis.opsForValue().get(Keys.NEXT_USER_ID);
		String postIdBefore = redis.opsForValue().get(Keys.NEXT_POST_ID);

		assertStatus(app.post("/api/register", "{}"), 400);
		assertStatus(app.post("/api/register", null), 400);
		assertStatus(app.post("/api/register", "{\"name\":\"ok_name_x\"}"), 400);
		assertStatus(app.post("/api/register", "{not json"), 400);
		for (String hostile : List.of("a:b", "x{tag}y", "<script>", "robert'); DROP", "e\\u0301t\\u00e9", "ab",
				"a".repeat(21), "sp ace")) {
			assertStatus(app.post("/api/register", "{\"name\":\"" + hostile + "\",\"password\":\"long-enough\"}"), 400);
		}
		assertStatus(app.post("/api/posts", "{\"text\":\"" + "x".repeat(281) + "\"}", "Authorization", auth), 400);
		assertStatus(app.post("/api/posts", "{\"text\":\"   \"}", "Authorization", auth), 400);
		assertStatus(app.post("/api/posts", "{}", "Authorization", auth), 400);
		assertStatus(app.post("/api/posts", "{\"text\":\"no auth\"}"), 401);
		assertStatus(app.post("/api/posts", "{\"text\":\"bad auth\"}", "Authorization", "Bearer nope"), 401);
		assertStatus(app.post("/api/follow/" + SampleClient.uniqueName("ghost"), null, "Authorization", auth), 404);
		assertStatus(app.post("/api/follow/a%3Ab", null, "Authorization", auth), 400);
		assertStatus(app.get("/api/users/" + SampleClient.uniqueName("ghost")), 404);
		assertStatus(app.get("/api/timeline?size=1000", "Authorization", auth), 400);
		assertStatus(app.get("/api/timeline?page=abc", "Authorization", auth), 400);

		assertThat(String.valueOf(redis.opsForHash().size(Keys.USERS))).isEqualTo(usersBefore);
		assertThat(redis.opsForValue().get(Keys.NEXT_USER_ID)).isEqualTo(userIdBefore);
		assertThat(redis.opsForValue().get(Keys.NEXT_POST_ID)).isEqualTo(postIdBefore);
	}

	private static void assertStatus(HttpResponse<String> response, int status) {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
		assertThat(response.headers().firstValue("Content-Type"))
			.hasValueSatisfying((type) -> assertThat(type).contains("json"));
	}

}
