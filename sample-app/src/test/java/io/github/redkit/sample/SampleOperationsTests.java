package io.github.redkit.sample;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import io.github.redkit.budget.Budgets;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.lock.LockNotAcquiredException;
import io.github.redkit.sample.ads.Settlement;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Statistic;
import org.assertj.core.api.InstanceOfAssertFactories;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Ad campaigns, worker control, analytics, maintenance, health and metrics over HTTP on a
 * real Redis.
 */
@SampleApplicationTest
class SampleOperationsTests {

	private static final String[] ADMIN = { "X-Admin-Token", SampleClient.ADMIN };

	private SampleClient app;

	// the application the other @SampleApplicationTest classes share
	@BeforeEach
	void wrap(@Autowired ConfigurableApplicationContext context) {
		this.app = new SampleClient(context);
	}

	@Test
	void aCampaignWhoseBudgetEndedIsSkippedBySettlementNotAFailure() throws Exception {
		String campaign = "gone-" + UUID.randomUUID().toString().substring(0, 8);
		assertThat(this.app.post("/api/campaigns", "{\"id\":\"" + campaign + "\",\"budget\":5}").statusCode())
			.isEqualTo(201);
		// its budget ends (as with its TTL) while the campaign stays listed
		this.app.bean(Budgets.class).delete(campaign);
		Map<String, Object> settled = await().atMost(Duration.ofSeconds(5))
			.ignoreExceptionsInstanceOf(LockNotAcquiredException.class)
			.until(() -> this.app.bean(Settlement.class).settle(), (result) -> true);
		assertThat(settled.get("withoutBudget")).asInstanceOf(InstanceOfAssertFactories.LIST).contains(campaign);
	}

	@Test
	void aSettlementWriterWhoseLeaseExpiredIsRefusedByTheFencingToken() throws Exception {
		String campaign = "c-" + UUID.randomUUID().toString().substring(0, 8);
		assertThat(this.app.post("/api/campaigns", "{\"id\":\"" + campaign + "\",\"budget\":500}").statusCode())
			.isEqualTo(201);
		DistributedLocks locks = this.app.bean(DistributedLocks.class);
		Settlement settlement = this.app.bean(Settlement.class);
		// the first holder takes the lock with a short lease and stalls past it
		LockHandle first = locks.tryLock("campaign-settlement", Duration.ZERO, Duration.ofMillis(200)).orElseThrow();
		long stale = first.fencingToken();
		// the second holder takes it once the lease ran out in Redis (a newer token) and
		// writes
		Map<String, Object> second = await().atMost(Duration.ofSeconds(5))
			.ignoreExceptionsInstanceOf(LockNotAcquiredException.class)
			.until(settlement::settle, (settled) -> true);
		assertThat((Long) second.get("fencingToken")).isGreaterThan(stale);
		// the first holder resumes: its write is refused, the second's stands
		Map<String, Object> late = settlement.record(stale);
		assertThat(late.get("refused")).asInstanceOf(InstanceOfAssertFactories.LIST).contains(campaign);
		assertThat(this.app.redis().opsForHash().get("ads:settlement:" + campaign, "fence"))
			.isEqualTo(Long.toString((Long) second.get("fencingToken")));
	}

	@Test
	void auctionReplayWithDuplicatedShuffledEventsLeavesTheBudgetExact() throws Exception {
		HttpResponse<String> response = this.app.post("/api/ads/replay", "{\"auctions\":300,\"seed\":42}");
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		JsonNode report = SampleClient.json(response);
		assertThat(report.get("duplicates").asLong()).isPositive();
		assertThat(report.get("remaining").asLong()).isEqualTo(report.get("expectedRemaining").asLong());
		assertThat(report.get("auctionsWithBidAndOneOutcome").asLong()).isEqualTo(300);
		assertThat(report.get("exact").asBoolean()).isTrue();
		String campaign = report.get("campaign").asString();
		assertThat(SampleClient.json(this.app.get("/api/campaigns/" + campaign)).get("remaining").asLong())
			.isEqualTo(report.get("expectedRemaining").asLong());
	}

	@Test
	void auctionStepsOverHttpRunOnceAndInOrder() throws Exception {
		String campaign = "c-" + UUID.randomUUID().toString().substring(0, 8);
		assertThat(this.app.post("/api/campaigns", "{\"id\":\"" + campaign + "\",\"budget\":1000}").statusCode())
			.isEqualTo(201);
		String auction = "/api/campaigns/" + campaign + "/auctions/a1/";
		assertThat(this.app.post(auction + "notice", "{\"amount\":100}").statusCode()).isEqualTo(409);
		assertThat(this.app.post(auction + "bid", "{\"amount\":300}").body()).contains("\"remaining\":700");
		assertThat(this.app.post(auction + "bid", "{\"amount\":300}").body()).contains("\"remaining\":700");
		assertThat(this.app.post(auction + "notice", "{\"amount\":120}").body()).contains("\"remaining\":880");
		assertThat(this.app.post(auction + "notice", "{\"amount\":120}").body()).contains("\"remaining\":880");
		assertThat(this.app.post(auction + "timeout", null).statusCode()).isEqualTo(409);
		assertThat(this.app.post("/api/campaigns", "{\"id\":\"" + campaign + "\",\"budget\":5}").statusCode())
			.isEqualTo(409);
		assertThat(this.app.post("/api/campaigns", "{\"id\":\"bad:id\",\"budget\":5}").statusCode()).isEqualTo(400);
		assertThat(this.app.post("/api/campaigns", "{\"id\":\"neg\",\"budget\":-5}").statusCode()).isEqualTo(400);
		assertThat(this.app.post("/api/campaigns/nope-" + campaign + "/auctions/a1/bid", "{\"amount\":1}").statusCode())
			.isEqualTo(404);

		assertThat(this.app.post("/api/admin/settle", null).statusCode()).isEqualTo(403);
		HttpResponse<String> settled = this.app.post("/api/admin/settle", null, ADMIN);
		assertThat(settled.statusCode()).as(settled.body()).isEqualTo(200);
		assertThat(settled.body()).contains("\"" + campaign + "\":880");
		assertThat(this.app.redis().opsForHash().get("ads:settlement:" + campaign, "remaining")).isEqualTo("880");
	}

	@Test
	void pausedFanOutWorkersResumeThroughTheControlState() throws Exception {
		String author = SampleClient.uniqueName("paused");
		String authorAuth = this.app.register(author);
		String fanAuth = this.app.register(SampleClient.uniqueName("fan"));
		this.app.post("/api/follow/" + author, null, "Authorization", fanAuth);
		assertThat(this.app.post("/api/admin/fanout", "{\"run\":false}").statusCode()).isEqualTo(403);
		try {
			assertThat(this.app.post("/api/admin/fanout", "{\"run\":false}", ADMIN).statusCode()).isEqualTo(200);
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(this.app.get("/api/admin/fanout", ADMIN).body())
					.contains("\"runningHere\":false"));
			long postId = SampleClient
				.json(this.app.post("/api/posts", "{\"text\":\"while paused\"}", "Authorization", authorAuth))
				.get("id")
				.asLong();
			// the message waits in the queue while the workers are paused
			assertThat(this.app.redis().opsForList().size("redkit:queue:{fanout}:ready")).isPositive();
			assertThat(this.app.get("/api/timeline", "Authorization", fanAuth).body())
				.doesNotContain("\"id\":" + postId);
			assertThat(this.app.post("/api/admin/fanout", "{\"run\":true,\"throttle\":50}", ADMIN).statusCode())
				.isEqualTo(200);
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(this.app.get("/api/timeline", "Authorization", fanAuth).body())
					.contains("\"id\":" + postId));
			assertThat(this.app.get("/api/admin/fanout", ADMIN).body()).contains("\"throttleHere\":50")
				.contains("acknowledgements");
		}
		finally {
			this.app.post("/api/admin/fanout", "{\"run\":true,\"throttle\":0}", ADMIN);
		}
	}

	@Test
	void analyticsCountVisitorsActivityAndPosts() throws Exception {
		String auth = this.app.register(SampleClient.uniqueName("counted"));
		this.app.post("/api/posts", "{\"text\":\"count me\"}", "Authorization", auth);
		JsonNode summary = SampleClient.json(this.app.get("/api/analytics?minutes=2"));
		assertThat(summary.get("uniqueVisitorsToday").asLong()).isPositive();
		long posts = 0;
		long active = 0;
		for (JsonNode count : summary.get("postsPerMinute")) {
			posts += count.asLong();
		}
		for (JsonNode count : summary.get("activeUsersPerMinute")) {
			active += count.asLong();
		}
		assertThat(posts).isPositive();
		assertThat(active).isPositive();
		assertThat(this.app.get("/api/analytics?minutes=0").statusCode()).isEqualTo(400);
	}

	@Test
	void maintenanceGivesATtlToKeysWithoutOneInBatches() throws Exception {
		StringRedisTemplate redis = this.app.redis();
		String prefix = "maint-" + UUID.randomUUID() + ":";
		for (int i = 0; i < 25; i++) {
			redis.opsForValue().set(prefix + i, "v");
		}
		redis.opsForValue().set(prefix + "has-ttl", "v", Duration.ofSeconds(5000));
		assertThat(this.app.post("/api/admin/maintenance/expire", "{\"pattern\":\"x\",\"ttlSeconds\":1}").statusCode())
			.isEqualTo(403);
		HttpResponse<String> response = this.app.post("/api/admin/maintenance/expire",
				"{\"pattern\":\"" + prefix + "*\",\"ttlSeconds\":3600,\"batchSize\":10}", ADMIN);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		JsonNode report = SampleClient.json(response);
		assertThat(report.get("scanned").asLong()).isEqualTo(26);
		assertThat(report.get("updated").asLong()).isEqualTo(25);
		assertThat(report.get("batches").size()).isGreaterThanOrEqualTo(3);
		assertThat(redis.getExpire(prefix + "0")).isBetween(3500L, 3600L);
		assertThat(redis.getExpire(prefix + "has-ttl")).isGreaterThan(4000L);
		assertThat(
				this.app.post("/api/admin/maintenance/expire", "{\"pattern\":\"" + prefix + "*\"}", ADMIN).statusCode())
			.isEqualTo(400);
	}

	@Test
	void healthShowsRedisUpOnTheConfiguredRedis() throws Exception {
		assertThat(this.app.get("/actuator/health").body()).contains("\"status\":\"UP\"").contains("\"redis\"");
		assertThat(this.app.get("/actuator/redkit").body()).contains("\"capabilities\"").contains("\"posts\"");
	}

	@Test
	void metricsAreExposed() throws Exception {
		// the registry is the shared application's, which other classes' calls counted in
		// too: each meter must move with this test's own calls
		List<String> meters = List.of("redkit.ratelimit.decisions", "redkit.queue.messages", "redkit.budget.changes",
				"redkit.idempotency.steps", "redkit.lock.acquire", "cache.gets");
		Map<String, Double> before = counts(meters);
		String auth = this.app.register(SampleClient.uniqueName("metered"));
		this.app.post("/api/posts", "{\"text\":\"metrics\"}", "Authorization", auth);
		this.app.get("/api/users/" + SampleClient.uniqueName("ghost"));
		this.app.post("/api/ads/replay", "{\"auctions\":5}");
		this.app.post("/api/admin/settle", null, ADMIN);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			Map<String, Double> after = counts(meters);
			for (String meter : meters) {
				assertThat(after.get(meter)).as(meter).isGreaterThan(before.get(meter));
			}
		});
		assertThat(this.app.get("/actuator/prometheus").body()).contains("redkit_ratelimit_decisions")
			.contains("redkit_queue_messages")
			.contains("redkit_budget_changes")
			.contains("redkit_idempotency_steps")
			.contains("redkit_lock_acquire")
			.contains("cache_gets");
		assertThat(this.app.get("/actuator/metrics/redkit.ratelimit.decisions").statusCode()).isEqualTo(200);
	}

	/**
	 * Each meter's count, summed over its tags.
	 */
	private Map<String, Double> counts(List<String> meters) {
		MeterRegistry registry = this.app.bean(MeterRegistry.class);
		Map<String, Double> counts = new HashMap<>();
		for (String meter : meters) {
			double count = 0;
			for (Meter each : registry.find(meter).meters()) {
				for (Measurement measurement : each.measure()) {
					if (measurement.getStatistic() == Statistic.COUNT) {
						count += measurement.getValue();
					}
				}
			}
			counts.put(meter, count);
		}
		return counts;
	}

}
