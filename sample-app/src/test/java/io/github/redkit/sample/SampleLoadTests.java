package io.github.redkit.sample;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.ratelimit.RateLimitDecisionListener;
import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's {@code posts} limit (5 per period per user) against a load generator we
 * did not write: {@code wrk} posts as one user from 16 connections for three and a half
 * periods. Every post the limit let through is placed on Redis' clock (the time its
 * decision was counted at) and no period may hold more than 5; the server's posts must
 * match the decisions one for one. The period is 2 s here instead of the sample's 10 s:
 * the same script and bound with five times the boundaries per second of load, so that
 * the build pays 7 s of saturating load instead of 30. The sample's own 10 s, by hand:
 * {@code sample-app/wrk/hammer-posts.sh} (README, "Rate limiting").
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
		"sample.embedded-redis=false",
		// a list binds whole: the sample's three windows, the first one's period
		// shortened
		"redkit.rate-limit.limits.posts.windows[0].limit=5", "redkit.rate-limit.limits.posts.windows[0].period=2s",
		"redkit.rate-limit.limits.posts.windows[1].limit=30", "redkit.rate-limit.limits.posts.windows[1].period=1m",
		"redkit.rate-limit.limits.posts.windows[2].limit=300", "redkit.rate-limit.limits.posts.windows[2].period=1h",
		// a decision past its timeout on a loaded machine lets a post through uncounted
		// (the sample fails open): here it is refused, each post decided on Redis' clock
		"redkit.rate-limit.failure-mode=deny", "redkit.rate-limit.timeout=2s" })
@RedkitTest
@DirtiesContext
class SampleLoadTests {

	private static final int LIMIT = 5;

	private static final long PERIOD_MILLIS = 2_000;

	@Test
	void wrkNeverGetsMoreThanThePostsLimitIntoAnyPeriod(@Autowired ConfigurableApplicationContext context)
			throws Exception {
		Wrk.assumeInstalled();
		SampleClient app = new SampleClient(context);
		String name = SampleClient.uniqueName("wrk");
		String auth = app.register(name);
		Wrk.Totals wrk = Wrk
			.start("posts.lua", app.base() + "/api/posts", 16, Duration.ofMillis(7 * PERIOD_MILLIS / 2),
					Map.of("REDKIT_SECRET", auth.substring("Bearer ".length())))
			.finish();
		String output = wrk.output();
		List<Long> posts = new ArrayList<>();
		for (JsonNode post : SampleClient.json(app.get("/api/users/" + name + "/posts?size=50"))) {
			posts.add(post.get("time").asLong());
		}
		List<Long> times = Decisions.allowed.stream().map(Instant::toEpochMilli).sorted().toList();
		assertThat(times).as("one allowed decision per accepted post").hasSameSizeAs(posts);
		int busiest = BusiestPeriod.of(times, PERIOD_MILLIS);
		// three periods: the limit was reached in each, and never passed
		assertThat(times).as(output).hasSizeGreaterThanOrEqualTo(2 * LIMIT);
		assertThat(busiest).as("posts allowed in one period, on Redis' clock: %s", times).isLessThanOrEqualTo(LIMIT);
	}

	/**
	 * Records when Redis counted each post the {@code posts} limit let through.
	 */
	@TestConfiguration(proxyBeanMethods = false)
	static class Decisions {

		static final List<Instant> allowed = new CopyOnWriteArrayList<>();

		@Bean
		RateLimitDecisionListener postsDecisions() {
			return (limitName, policy, decision) -> {
				Instant decidedAt = decision.decidedAt();
				if (limitName.equals("posts") && decidedAt != null) {
					allowed.add(decidedAt);
				}
			};
		}

	}

}
