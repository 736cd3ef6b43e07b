package io.github.redkit.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redkit.budget.Budgets;
import io.github.redkit.lock.DistributedLocks;
import io.github.redkit.lock.LockHandle;
import io.github.redkit.queue.QueueListener;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Grafana dashboard ({@code docs/grafana/redkit-dashboard.json}) and the alerting
 * rules ({@code docs/prometheus/redkit-alerts.yml}) against a real Prometheus (Debian's
 * package) scraping the sample every second: the rules pass {@code promtool check rules};
 * one sample application, a region ({@code eu}) with a peer ({@code us}), runs under
 * {@code wrk} while scenarios make each alert of a test copy of the rules (every
 * {@code for:} one second, two waiting times shortened) pending or firing: a limit that
 * refuses most calls, dead letters, a stalled queue, a contended lock and a lost lease, a
 * budget spent out, a risky server setting, the region's Redis emptied (a recovery), the
 * peer's Redis stopped (failing replication, lag, a trimmed outbox), scripts refused by
 * an ACL (rate limits decided without Redis, the doctor unable to read); then every query
 * of the dashboard, its variables substituted, returns series.
 */
class SamplePrometheusTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final Pattern ALERT = Pattern.compile("^\\s*- alert: (\\S+)$", Pattern.MULTILINE);

	private static final Pattern LABEL_VALUES = Pattern.compile("^label_values\\((.+),\\s*(\\w+)\\)$");

	// waiting times the scenarios cannot cheaply wait out, shortened in the test copy
	private static final Map<String, String> SHORTENED = Map.of(
			"max by (job, instance, queue) (redkit_queue_oldest_age) > 300",
			"max by (job, instance, queue) (redkit_queue_oldest_age) > 2",
			"max by (job, instance, peer) (redkit_regions_replication_lag_seconds) > 60",
			"max by (job, instance, peer) (redkit_regions_replication_lag_seconds) > 2");

	private final Set<String> seen = new TreeSet<>();

	@BeforeEach
	void needsPrometheusAndWrk() {
		// before the test's servers start
		Prometheus.assumeInstalled();
		Wrk.assumeInstalled();
	}

	@Test
	void everyAlertFiresInItsScenarioAndEveryDashboardQueryReturnsSeries(@PrivateRedis RedisServer euRedis,
			@PrivateRedis RedisServer usRedis, @TempDir Path directory) throws Exception {
		Path rules = docs().resolve("prometheus/redkit-alerts.yml");
		Prometheus.checkRules(rules);
		Path testRules = directory.resolve("redkit-alerts-test.yml");
		Files.writeString(testRules, testCopy(Files.readString(rules)));
		Prometheus.checkRules(testRules);
		Set<String> alerts = alertNames(Files.readString(rules));
		try (RespClient redis = euRedis.client(euRedis.port())) {
			// a risk for the doctor; stream nodes this small let a 30-entry outbox bound
			// trim
			redis.call("CONFIG", "SET", "maxmemory", "1gb", "maxmemory-policy", "allkeys-lru");
			redis.call("CONFIG", "SET", "stream-node-max-entries", "2");
		}
		try (SampleClient eu = SampleClient.on(euRedis, FailingListener.class, "--spring.profiles.active=regions",
				"--redkit.regions.local=eu", "--redkit.regions.peers.us.url=redis://127.0.0.1:" + usRedis.port(),
				"--sample.regions.campaign-budget=1000000", "--redkit.regions.outbox.max-length=30",
				"--redkit.queue.queues.prom-failing.max-attempts=1", "--redkit.queue.queues.prom-idle.max-attempts=1",
				"--redkit.lock.lease-time=600ms", "--redkit.metrics.gauge-refresh=1s");
				Prometheus prometheus = Prometheus.start(directory, eu.base().substring("http://".length()),
						testRules)) {
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(prometheus.query("up{job=\"redkit-sample\"} == 1")).isNotEmpty());
			String user = eu.register(SampleClient.uniqueName("prom"));
			Wrk load = Wrk.start("posts.lua", eu.base() + "/api/posts", 4, Duration.ofSeconds(3),
					Map.of("REDKIT_SECRET", user.substring("Bearer ".length())));
			everyCapabilityAlerts(eu, prometheus);
			load.finish();
			euRedis.flushAll();
			awaitAlerts(prometheus, Set.of("RedkitRegionRecovered"), () -> {
			});
			usRedis.stop();
			awaitAlerts(prometheus, Set.of("RedkitRegionReplicationFailing", "RedkitRegionReplicationLagging",
					"RedkitRegionReseedRequired"), () -> eu.post("/api/regions/campaign/spend?amount=1", null));
			try (RespClient redis = euRedis.client(euRedis.port())) {
				redis.call("ACL", "SETUSER", "default", "-eval", "-evalsha", "-config", "-info");
			}
			// the limiter itself: the sample's request counter fails every /api request
			// without scripts
			RateLimiter limiter = eu.bean(RateLimiter.class);
			awaitAlerts(prometheus, Set.of("RedkitRateLimitFailing", "RedkitServerNotChecked"),
					() -> limiter.tryAcquire("posts", "prom"));
			assertThat(this.seen).as("every alert of the rules was pending or firing").containsAll(alerts);
			for (JsonNode rule : prometheus.alertingRules()) {
				assertThat(rule.get("health").asString()).as("%s: %s", rule.get("name"), rule.get("lastError"))
					.isEqualTo("ok");
			}
			// a scrape that outlasts its 1 s timeout on a loaded machine marks the
			// target's
			// series stale until the next one answers
			await().atMost(Duration.ofSeconds(30))
				.pollInterval(Duration.ofSeconds(1))
				.untilAsserted(() -> everyDashboardQueryReturnsSeries(prometheus));
		}
	}

	/**
	 * Dead letters, a stalled queue, a lost lease, a contended lock, a budget spent out
	 * and the doctor's risk, while {@code wrk} runs into the {@code posts} limit.
	 */
	private void everyCapabilityAlerts(SampleClient eu, Prometheus prometheus) {
		QueueTemplate queues = eu.bean(QueueTemplate.class);
		queues.send("prom-failing", "refused");
		queues.send("prom-idle", "waits");
		DistributedLocks locks = eu.bean(DistributedLocks.class);
		LockHandle lost = locks.tryLock("prom-lease", "prom-lease", Duration.ZERO, Duration.ofMillis(300))
			.orElseThrow();
		// renewed by the watchdog every 200 ms while held
		LockHandle renewed = locks.tryLock("prom-renewed", "prom-renewed", Duration.ZERO, null).orElseThrow();
		Budgets budgets = eu.bean(Budgets.class);
		budgets.create("prom-low", 100);
		assertThat(budgets.spend("prom-low", 60).applied()).isTrue();
		try (LockHandle held = locks.tryLock("prom-contended", "prom-contended", Duration.ZERO, Duration.ofSeconds(30))
			.orElseThrow()) {
			awaitAlerts(prometheus,
					Set.of("RedkitRateLimitRefusingMost", "RedkitQueueDeadLetters", "RedkitQueueStalled",
							"RedkitLockLeaseLost", "RedkitLockContention", "RedkitBudgetsRunningOut",
							"RedkitServerRisk"),
					() -> {
						// another thread: a second holder waits 100 ms in vain
						assertThat(CompletableFuture
							.supplyAsync(() -> locks.tryLock("prom-contended", "prom-contended", Duration.ofMillis(100),
									Duration.ofSeconds(1)))
							.join()).isEmpty();
						assertThat(budgets.spend("prom-low", 60).applied()).isFalse();
					});
		}
		assertThat(lost.isHeld()).isFalse();
		lost.close();
		assertThat(renewed.isHeld()).isTrue();
		renewed.close();
	}

	private static void everyDashboardQueryReturnsSeries(Prometheus prometheus) throws Exception {
		Dashboard dashboard = Dashboard.read(docs().resolve("grafana/redkit-dashboard.json"));
		assertThat(dashboard.queries()).hasSizeGreaterThan(20);
		dashboard.queries()
			.forEach((panel, expression) -> assertThat(prometheus.query(expression))
				.as("panel %s: %s", panel, expression)
				.isNotEmpty());
		assertThat(dashboard.variables()).hasSize(6);
		dashboard.variables().forEach((variable, query) -> {
			Matcher labelValues = LABEL_VALUES.matcher(query);
			assertThat(labelValues.matches()).as("variable %s: %s", variable, query).isTrue();
			String label = labelValues.group(2);
			assertThat(prometheus.series(labelValues.group(1))).as("variable %s: %s", variable, query)
				.anySatisfy((series) -> assertThat(series.has(label)).isTrue());
		});
	}

	private void awaitAlerts(Prometheus prometheus, Set<String> expected, ThrowingRunnable nudge) {
		await().atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
			nudge.run();
			for (JsonNode alert : prometheus.alerts()) {
				this.seen.add(alert.get("labels").get("alertname").asString());
			}
			assertThat(this.seen).containsAll(expected);
		});
	}

	/**
	 * The rules with every {@code for:} one second and the {@link #SHORTENED} waits. The
	 * first-event windows stay: Prometheus and the sample run for less than their ten
	 * minutes (an hour) here.
	 */
	private static String testCopy(String rules) {
		String copy = rules.replaceAll("(?m)^(\\s+)for: \\S+$", "$1for: 1s");
		for (Map.Entry<String, String> shortened : SHORTENED.entrySet()) {
			assertThat(copy).as("the rule to shorten").containsOnlyOnce(shortened.getKey());
			copy = copy.replace(shortened.getKey(), shortened.getValue());
		}
		return copy;
	}

	private static Set<String> alertNames(String rules) {
		Set<String> names = new TreeSet<>();
		Matcher alert = ALERT.matcher(rules);
		while (alert.find()) {
			names.add(alert.group(1));
		}
		assertThat(names).hasSizeGreaterThan(10);
		return names;
	}

	static Path docs() {
		Path dir = Path.of("").toAbsolutePath();
		while (!Files.isDirectory(dir.resolve("docs/grafana"))) {
			dir = dir.getParent();
			assertThat(dir).as("a docs/grafana folder above the working directory").isNotNull();
		}
		return dir.resolve("docs");
	}

	/**
	 * The dashboard's queries and variables, with Grafana's variables replaced by what
	 * Prometheus takes: every selector variable matches anything, a rate's interval is a
	 * minute.
	 */
	record Dashboard(Map<String, String> queries, Map<String, String> variables) {

		static Dashboard read(Path file) throws Exception {
			JsonNode dashboard = json.readTree(Files.readString(file));
			Map<String, String> queries = new LinkedHashMap<>();
			List<JsonNode> panels = new ArrayList<>();
			dashboard.get("panels").forEach(panels::add);
			for (int i = 0; i < panels.size(); i++) {
				JsonNode panel = panels.get(i);
				if (panel.has("panels")) {
					panel.get("panels").forEach(panels::add);
				}
				if (panel.has("targets")) {
					for (JsonNode target : panel.get("targets")) {
						queries.put(panel.get("title").asString() + " " + target.get("refId").asString(),
								substitute(target.get("expr").asString()));
					}
				}
			}
			Map<String, String> variables = new LinkedHashMap<>();
			for (JsonNode variable : dashboard.get("templating").get("list")) {
				if (variable.get("type").asString().equals("query")) {
					variables.put(variable.get("name").asString(),
							substitute(variable.get("query").get("query").asString()));
				}
			}
			return new Dashboard(queries, variables);
		}

		private static String substitute(String expression) {
			String substituted = expression.replace("$__rate_interval", "1m").replaceAll("\\$\\{?\\w+\\}?", ".*");
			assertThat(substituted).as(expression).doesNotContain("$");
			return substituted;
		}

	}

	/**
	 * A listener that fails every message of {@code prom-failing} (a source of the
	 * sample's application, so not a scanned component).
	 */
	static class FailingListener {

		@QueueListener(queue = "prom-failing")
		void refuse(String payload) {
			throw new IllegalStateException("refused by SamplePrometheusTests: " + payload);
		}

	}

}
