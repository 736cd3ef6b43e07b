package io.github.redkit.autoconfigure.region;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.github.redkit.actuate.RedkitEndpoint;
import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.autoconfigure.actuate.RedkitEndpointAutoConfiguration;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.region.RegionalBudgets;
import io.github.redkit.region.RegionalCounters;
import io.github.redkit.region.internal.RegionOutbox;
import io.github.redkit.region.internal.RegionReplicators;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.RespClient;
import io.github.redkit.testsupport.SentinelRedisServer;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Several regions are configured only when {@code redkit.regions.local} is set; a peer
 * that cannot work fails start-up naming its property; two applications on two Redis
 * servers, as two regions, converge.
 */
class RegionAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				RegionAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties());

	@Test
	void withoutALocalRegionThereIsNothing() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(RegionalCounters.class)
			.doesNotHaveBean(RegionReplicators.class));
	}

	@Test
	void budgetsAreSharedUnlessReplicateLeavesThemOut() {
		this.runner.withPropertyValues("redkit.regions.local=eu")
			.run((context) -> assertThat(context).hasSingleBean(RegionalBudgets.class)
				.hasSingleBean(RegionOutbox.class));
		this.runner.withPropertyValues("redkit.regions.local=eu", "redkit.regions.replicate=counters")
			.run((context) -> assertThat(context).hasSingleBean(RegionalCounters.class)
				.doesNotHaveBean(RegionalBudgets.class)
				.doesNotHaveBean(RegionOutbox.class));
		startUpFailsNaming("redkit.regions.budgets.operation-ttl", "redkit.regions.local=eu",
				"redkit.regions.budgets.operation-ttl=0s");
	}

	@Test
	void aLocalRegionWithoutPeersCountsLocally() {
		this.runner.withPropertyValues("redkit.regions.local=eu").run((context) -> {
			assertThat(context).hasSingleBean(RegionalCounters.class);
			assertThat(context.getBean(RegionReplicators.class).replicators()).isEmpty();
		});
	}

	@Test
	void aMalformedPeerUrlFailsStartUpNamingTheProperty() {
		startUpFailsNaming("redkit.regions.peers.us.url", "redkit.regions.local=eu",
				"redkit.regions.peers.us.url=http://us:6379");
		startUpFailsNaming("redkit.regions.peers.us.url", "redkit.regions.local=eu",
				"redkit.regions.peers.us.url=redis://:6379");
	}

	@Test
	void aPeerNeedsExactlyOneWayToItsRedisAndWellFormedNodes() {
		startUpFailsNaming("redkit.regions.peers.us: set exactly one of", "redkit.regions.local=eu",
				"redkit.regions.peers.us.url=redis://us:6379", "redkit.regions.peers.us.cluster.nodes=us-1:6379");
		startUpFailsNaming("redkit.regions.peers.us.cluster.nodes: 'us-1' is not host:port", "redkit.regions.local=eu",
				"redkit.regions.peers.us.cluster.nodes=us-1");
		startUpFailsNaming("redkit.regions.peers.us.sentinel.master", "redkit.regions.local=eu",
				"redkit.regions.peers.us.sentinel.nodes=s:26379");
		this.runner
			.withPropertyValues("redkit.regions.local=eu", "redkit.regions.peers.us.sentinel.master=m",
					"redkit.regions.peers.us.sentinel.nodes=s:port")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("redkit.regions.peers.us.sentinel.nodes: 's:port' has no port number"));
	}

	@Test
	void aRegionOnAClusterAndARegionBehindSentinelsConvergeWithAStandaloneOne(@PrivateRedis RedisServer eu) {
		String prefix = "redkit.key-prefix=rg-" + UUID.randomUUID();
		RedisServer cluster = RedisServers.cluster();
		RedisServer sentinel = RedisServers.sentinel();
		String sentinels = ((SentinelRedisServer) sentinel).sentinelPorts()
			.stream()
			.map((port) -> "127.0.0.1:" + port)
			.collect(Collectors.joining(","));
		String clusterNodes = cluster.ports()
			.stream()
			.map((port) -> "127.0.0.1:" + port)
			.collect(Collectors.joining(","));
		ApplicationContextRunner euRegion = regionRunner(eu.springProperties(), "eu", prefix,
				"redkit.regions.peers.us.cluster.nodes=" + clusterNodes,
				"redkit.regions.peers.ap.sentinel.master=" + SentinelRedisServer.MASTER_NAME,
				"redkit.regions.peers.ap.sentinel.nodes=" + sentinels);
		ApplicationContextRunner usRegion = regionRunner(cluster.springProperties(), "us", prefix,
				"redkit.regions.peers.eu.url=redis://127.0.0.1:" + eu.port(),
				"redkit.regions.peers.ap.sentinel.master=" + SentinelRedisServer.MASTER_NAME,
				"redkit.regions.peers.ap.sentinel.nodes=" + sentinels);
		ApplicationContextRunner apRegion = regionRunner(sentinel.springProperties(), "ap", prefix,
				"redkit.regions.peers.eu.url=redis://127.0.0.1:" + eu.port(),
				"redkit.regions.peers.us.cluster.nodes=" + clusterNodes);
		euRegion.run((euApp) -> usRegion.run((usApp) -> apRegion.run((apApp) -> {
			List<RegionalCounters> regions = List.of(euApp.getBean(RegionalCounters.class),
					usApp.getBean(RegionalCounters.class), apApp.getBean(RegionalCounters.class));
			for (int i = 0; i < regions.size(); i++) {
				regions.get(i).increment("launch {day}", 10 * (i + 1));
			}
			await().atMost(Duration.ofSeconds(20))
				.until(() -> regions.stream().allMatch((region) -> region.get("launch {day}") == 60));
			List<RegionalBudgets> budgets = List.of(euApp.getBean(RegionalBudgets.class),
					usApp.getBean(RegionalBudgets.class), apApp.getBean(RegionalBudgets.class));
			budgets.get(0).create("launch {day}", 100);
			await().atMost(Duration.ofSeconds(20))
				.until(() -> budgets.stream().allMatch((region) -> region.remaining("launch {day}") == 100));
			assertThat(budgets.get(1).spend("launch {day}", 30, "on the cluster").spent()).isTrue();
			assertThat(budgets.get(2).spend("launch {day}", 20, "behind sentinels").spent()).isTrue();
			await().atMost(Duration.ofSeconds(20))
				.until(() -> budgets.stream().allMatch((region) -> region.remaining("launch {day}") == 50));
		})));
	}

	@Test
	void aRegionOnAClusterSpreadsItsStateOverShardsAndConvergesWithAStandaloneOne(@PrivateRedis RedisServer eu) {
		String prefix = "redkit.key-prefix=rg-" + UUID.randomUUID();
		RedisServer cluster = RedisServers.cluster();
		String clusterNodes = cluster.ports()
			.stream()
			.map((port) -> "127.0.0.1:" + port)
			.collect(Collectors.joining(","));
		ApplicationContextRunner euRegion = regionRunner(eu.springProperties(), "eu", prefix,
				"redkit.regions.peers.us.cluster.nodes=" + clusterNodes, "redkit.regions.outbox.shards=4");
		ApplicationContextRunner usRegion = regionRunner(cluster.springProperties(), "us", prefix,
				"redkit.regions.peers.eu.url=redis://127.0.0.1:" + eu.port(), "redkit.regions.outbox.shards=4");
		euRegion.run((euApp) -> usRegion.run((usApp) -> {
			assertThat(usApp.getBean(RegionReplicators.class).replicators()).as("one per peer and shard").hasSize(4);
			List<RegionalCounters> regions = List.of(euApp.getBean(RegionalCounters.class),
					usApp.getBean(RegionalCounters.class));
			for (int i = 0; i < 20; i++) {
				regions.get(0).increment("counter " + i, i);
				regions.get(1).increment("counter " + i, 100);
			}
			await().atMost(Duration.ofSeconds(20))
				.until(() -> regions.stream()
					.allMatch(
							(region) -> IntStream.range(0, 20).allMatch((i) -> region.get("counter " + i) == i + 100)));
			List<RegionalBudgets> budgets = List.of(euApp.getBean(RegionalBudgets.class),
					usApp.getBean(RegionalBudgets.class));
			budgets.get(0).allot("seats", Map.of("eu", 10L, "us", 10L));
			await().atMost(Duration.ofSeconds(20))
				.until(() -> budgets.stream().allMatch((region) -> region.share("seats") == 10));
			assertThat(budgets.get(1).borrow("seats", 5, "on the cluster")).isEqualTo(5);
			assertThat(budgets.get(1).spend("seats", 15, "all of it").spent()).isTrue();
			await().atMost(Duration.ofSeconds(20))
				.until(() -> budgets.stream().allMatch((region) -> region.remaining("seats") == 5));
			// the shards' hash tags spread over the cluster's slots
			try (RespClient node = cluster.client(cluster.port())) {
				Set<Long> slots = new HashSet<>();
				for (String tag : List.of("{counters}", "{counters-1}", "{counters-2}", "{counters-3}")) {
					slots.add((Long) node.call("CLUSTER", "KEYSLOT", tag));
				}
				assertThat(slots).hasSize(4);
			}
		}));
	}

	@Test
	void shardsOutsideTheirRangeFailStartUp() {
		startUpFailsNaming("redkit.regions.outbox.shards", "redkit.regions.local=eu", "redkit.regions.outbox.shards=0");
		startUpFailsNaming("redkit.regions.outbox.shards", "redkit.regions.local=eu",
				"redkit.regions.outbox.shards=1025");
	}

	@Test
	void theLocalRegionAsItsOwnPeerFailsStartUp() {
		startUpFailsNaming("redkit.regions.peers", "redkit.regions.local=eu",
				"redkit.regions.peers.eu.url=redis://localhost");
	}

	@Test
	void replicatingWhatCannotBeReplicatedFailsStartUp() {
		this.runner.withPropertyValues("redkit.regions.local=eu", "redkit.regions.replicate=counters,queues")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.regions.replicate")
				.hasMessageContaining("queues"));
	}

	@Test
	void anApplicationsOwnBeansWin() {
		RegionalCounters own = new RegionalCounters() {

			@Override
			public long increment(String name, long delta) {
				return 0;
			}

			@Override
			public long get(String name) {
				return 0;
			}

		};
		RegionReplicators ownReplicators = new RegionReplicators(List.of(), List.of());
		this.runner.withPropertyValues("redkit.regions.local=eu")
			.withBean(RegionalCounters.class, () -> own)
			.withBean(RegionReplicators.class, () -> ownReplicators)
			.run((context) -> {
				assertThat(context.getBean(RegionalCounters.class)).isSameAs(own);
				assertThat(context.getBean(RegionReplicators.class)).isSameAs(ownReplicators);
			});
	}

	@Test
	void closingTheContextClosesThePeersScriptRunners(@PrivateRedis RedisServer us) {
		List<RedisScriptRunner> peerRunners = new ArrayList<>();
		this.runner
			.withPropertyValues("redkit.regions.local=eu",
					"redkit.regions.peers.us.url=redis://" + RedisServer.HOST + ":" + us.port(),
					"redkit.regions.replication.interval=10ms")
			.run((context) -> {
				RegionReplicators replicators = context.getBean(RegionReplicators.class);
				context.getBean(RegionalCounters.class).increment("clicks", 1);
				// shipped: the peer's runner holds a connection
				await().atMost(Duration.ofSeconds(20))
					.until(() -> "in-step".equals(replicators.replicators().get(0).state()));
				peerRunners.addAll(replicators.peerRunners().values());
				assertThat(peerRunners).hasSize(1).noneMatch(RedisScriptRunner::isClosed);
			});
		assertThat(peerRunners).allMatch(RedisScriptRunner::isClosed);
	}

	@Test
	void twoApplicationsInTwoRegionsConverge(@PrivateRedis RedisServer eu, @PrivateRedis RedisServer us) {
		region(eu, "eu", "us", us).run((euApp) -> region(us, "us", "eu", eu).run((usApp) -> {
			RegionalCounters euCounters = euApp.getBean(RegionalCounters.class);
			RegionalCounters usCounters = usApp.getBean(RegionalCounters.class);
			euCounters.increment("campaign 42", 30);
			usCounters.increment("campaign 42", 12);
			usCounters.increment("campaign 42", -2);
			await().atMost(Duration.ofSeconds(20))
				.until(() -> euCounters.get("campaign 42") == 40 && usCounters.get("campaign 42") == 40);
			RegionalBudgets euBudgets = euApp.getBean(RegionalBudgets.class);
			RegionalBudgets usBudgets = usApp.getBean(RegionalBudgets.class);
			euBudgets.create("campaign 42", 100);
			await().atMost(Duration.ofSeconds(20)).until(() -> usBudgets.remaining("campaign 42") == 100);
			assertThat(usBudgets.spend("campaign 42", 30, "order-1").spent()).isTrue();
			await().atMost(Duration.ofSeconds(20)).until(() -> euBudgets.remaining("campaign 42") == 70);
		}));
	}

	@Test
	@SuppressWarnings("unchecked")
	void theHealthReportsEachPeerAndIsDownOnlyWithoutTheLocalRedis(@PrivateRedis RedisServer eu,
			@PrivateRedis RedisServer us) {
		int gone = RedisServers.unusedPort();
		// each peer is reported once: its worst shard's state, its shards' lags
		// summed
		// (two fresh regions each time: every region has the same number of shards)
		for (int shards : new int[] { 1, 4 }) {
			eu.flushAll();
			us.flushAll();
			region(eu, "eu", "us", us)
				.withPropertyValues("redkit.regions.peers.ap.url=redis://127.0.0.1:" + gone,
						"redkit.regions.outbox.shards=" + shards)
				.run((context) -> {
					HealthIndicator health = context.getBean("redkitRegionsHealthIndicator", HealthIndicator.class);
					RegionalCounters counters = context.getBean(RegionalCounters.class);
					for (int i = 0; i < 8; i++) {
						counters.increment("clicks " + i, 3);
					}
					// a new region ships nothing until it has read every peer: it
					// cannot
					// tell itself from one that lost its data
					await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
						Health answer = health.health(true);
						assertThat(answer.getStatus()).as("a peer that is away is reported, not fatal")
							.isEqualTo(Status.UP);
						Map<String, Object> peers = (Map<String, Object>) answer.getDetails().get("peers");
						assertThat(peers).containsOnlyKeys("us", "ap");
						assertThat((Map<String, Object>) peers.get("us")).containsEntry("state", "recovering")
							.containsEntry("recovery", Map.of("peersRead", 1L, "peers", 2L, "countersRead", 0L));
						assertThat((Map<String, Object>) peers.get("ap")).containsEntry("state", "recovering")
							.containsKeys("lastError", "lastErrorAgeSeconds");
						// the same on the redkit endpoint, in the section regions
						// contribute
						RedkitEndpoint endpoint = context.getBean(RedkitEndpoint.class);
						assertThat(endpoint.summary().get("sections")).asInstanceOf(InstanceOfAssertFactories.LIST)
							.contains("regions");
						Map<String, Object> section = (Map<String, Object>) endpoint.section("regions", null, null);
						assertThat(section).containsEntry("region", "eu").containsKey("peers");
						assertThat((Map<String, Object>) ((Map<String, Object>) section.get("peers")).get("us"))
							.containsEntry("state", "recovering")
							.containsEntry("recovery", Map.of("peersRead", 1L, "peers", 2L, "countersRead", 0L));
					});
				});
		}
		// once every peer can be read, each is reported in step
		eu.flushAll();
		us.flushAll();
		region(eu, "eu", "us", us).withPropertyValues("redkit.regions.outbox.shards=4").run((context) -> {
			HealthIndicator health = context.getBean("redkitRegionsHealthIndicator", HealthIndicator.class);
			RegionalCounters counters = context.getBean(RegionalCounters.class);
			for (int i = 0; i < 8; i++) {
				counters.increment("clicks " + i, 3);
			}
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
				Map<String, Object> peers = (Map<String, Object>) health.health(true).getDetails().get("peers");
				assertThat((Map<String, Object>) peers.get("us")).containsEntry("state", "in-step")
					.containsEntry("lagEntries", 0L)
					.containsEntry("reseedRequired", false);
			});
		});
		region(eu, "eu", "us", us).withPropertyValues("spring.data.redis.port=1")
			.run((context) -> assertThat(
					context.getBean("redkitRegionsHealthIndicator", HealthIndicator.class).health(true).getStatus())
				.isEqualTo(Status.DOWN));
	}

	@Test
	void anApplicationsOwnHealthIndicatorWins() {
		HealthIndicator own = () -> Health.up().build();
		this.runner.withPropertyValues("redkit.regions.local=eu")
			.withBean("redkitRegionsHealthIndicator", HealthIndicator.class, () -> own)
			.run((context) -> assertThat(context.getBean("redkitRegionsHealthIndicator")).isSameAs(own));
	}

	private static ApplicationContextRunner regionRunner(String[] local, String name, String... properties) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
					RegionAutoConfiguration.class))
			.withPropertyValues(local)
			.withPropertyValues("redkit.regions.local=" + name, "redkit.regions.replication.interval=20ms")
			.withPropertyValues(properties);
	}

	private static ApplicationContextRunner region(RedisServer local, String name, String peer,
			RedisServer peerServer) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
					RegionAutoConfiguration.class, RedkitEndpointAutoConfiguration.class))
			.withPropertyValues(local.springProperties())
			.withPropertyValues("management.endpoints.web.exposure.include=redkit")
			.withPropertyValues("redkit.regions.local=" + name,
					"redkit.regions.peers." + peer + ".url=redis://127.0.0.1:" + peerServer.port(),
					"redkit.regions.replication.interval=20ms");
	}

	private void startUpFailsNaming(String expected, String... properties) {
		this.runner.withPropertyValues(properties)
			.run((context) -> assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining(expected));
	}

}
