package io.github.redkit.sample;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's {@code posts} limit (5 per 10 s per user) against a load generator we did
 * not write: {@code wrk} posts as one user from 16 connections for 30 s, and the times of
 * the posts the server accepted must never put more than 5 in any 10 s. The same run by
 * hand: {@code sample-app/wrk/hammer-posts.sh} (README, "Rate limits").
 */
class SampleLoadTests {

	private static final int LIMIT = 5;

	private static final long PERIOD_MILLIS = 10_000;

	@Test
	void wrkNeverGetsMoreThanThePostsLimitIntoAnyTenSeconds() throws Exception {
		Assumptions.assumeTrue(onPath("wrk"),
				"wrk is not installed (Debian: apt-get install wrk; .ci/run installs it)");
		try (SampleClient app = new SampleClient()) {
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
			List<Long> times = new ArrayList<>();
			for (JsonNode post : SampleClient.json(app.get("/api/users/" + name + "/posts?size=50"))) {
				times.add(post.get("time").asLong());
			}
			times.sort(null);
			int busiest = 0;
			for (int i = 0, j = 0; i < times.size(); i++) {
				while (times.get(i) - times.get(j) >= PERIOD_MILLIS) {
					j++;
				}
				busiest = Math.max(busiest, i - j + 1);
			}
			assertThat(output).contains("requests:");
			// three periods: the limit was reached in each, and never passed
			assertThat(times).as(output).hasSizeGreaterThanOrEqualTo(2 * LIMIT);
			assertThat(busiest).as("posts accepted in one 10 s: %s", times).isLessThanOrEqualTo(LIMIT);
		}
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

}
