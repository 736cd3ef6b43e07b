package io.github.redkit.sample;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.redkit.ratelimit.RateLimitDecisionListener;
import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Assumptions;
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
 * The sample's {@code posts} limit (5 per 10 s per user) against a load generator we did
 * not write: {@code wrk} posts as one user from 16 connections for 30 s. Every post the
 * limit let through is placed on Redis' clock (the time its decision was counted at) and
 * no 10 s may hold more than 5; the server's posts must match the decisions one for one.
 * The same run by hand: {@code sample-app/wrk/hammer-posts.sh} (README, "Rate limiting").
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "sample.embedded-redis=false")
@RedkitTest
@DirtiesContext
class SampleLoadTests {

	private static final int LIMIT = 5;

	private static final long PERIOD_MILLIS = 10_000;

	@Test
	void wrkNeverGetsMoreThanThePostsLimitIntoAnyTenSeconds(@Autowired ConfigurableApplicationContext context)
			throws Exception {
		Assumptions.assumeTrue(onPath("wrk"),
				"wrk is not installed (Debian: apt-get install wrk; .ci/run installs it)");
		SampleClient app = new SampleClient(context);
		String name = SampleClient.uniqueName("wrk");
		String auth = app.register(name);
		ProcessBuilder wrk = new ProcessBuilder("wrk", "-t2", "-c16", "-d30s", "-s", "wrk/posts.lua",
				app.base() + "/api/posts");
		wrk.environment().put("REDKIT_SECRET", auth.substring("Bearer ".length()));
		wrk.redirectErrorStream(true);
		Process process = wrk.start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(process.exitValue()).as(output).isZero();
		assertThat(output).contains("requests:");
		List<Long> posts = new ArrayList<>();
		for (JsonNode post : SampleClient.json(app.get("/api/users/" + name + "/posts?size=50"))) {
			posts.add(post.get("time").asLong());
		}
		List<Long> times = Decisions.allowed.stream().map(Instant::toEpochMilli).sorted().toList();
		assertThat(times).as("one allowed decision per accepted post").hasSameSizeAs(posts);
		int busiest = 0;
		for (int i = 0, j = 0; i < times.size(); i++) {
			while (times.get(i) - times.get(j) >= PERIOD_MILLIS) {
				j++;
			}
			busiest = Math.max(busiest, i - j + 1);
		}
		// three periods: the limit was reached in each, and never passed
		assertThat(times).as(output).hasSizeGreaterThanOrEqualTo(2 * LIMIT);
		assertThat(busiest).as("posts allowed in one 10 s, on Redis' clock: %s", times).isLessThanOrEqualTo(LIMIT);
	}

	private static boolean onPath(String command) {
		String path = System.getenv("PATH");
		if (path == null) {
			return false;
		}
		for (String directory : path.split(File.pathSeparator)) {
			if (new File(directory, command).canExecute()) {
				return true;
			}
		}
		return false;
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
