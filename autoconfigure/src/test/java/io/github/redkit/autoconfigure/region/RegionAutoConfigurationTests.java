package io.github.redkit.autoconfigure.region;

import java.time.Duration;
import java.util.List;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.region.RegionReplicators;
import io.github.redkit.region.RegionalCounters;
import io.github.redkit.test.RedisServer;
import io.github.redkit.test.RedisServers;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
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
	void aLocalRegionWithoutPeersCountsLocally() {
		this.runner.withPropertyValues("redkit.regions.local=eu").run((context) -> {
			assertThat(context).hasSingleBean(RegionalCounters.class);
			assertThat(context.getBean(RegionReplicators.class).replicators()).isEmpty();
		});
	}

	@Test
	void aMalformedPeerUrlFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("redkit.regions.local=eu", "redkit.regions.peers.us.url=http://us:6379")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.regions.peers.us.url"));
		this.runner.withPropertyValues("redkit.regions.local=eu", "redkit.regions.peers.us.url=redis://:6379")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.regions.peers.us.url"));
	}

	@Test
	void theLocalRegionAsItsOwnPeerFailsStartUp() {
		this.runner.withPropertyValues("redkit.regions.local=eu", "redkit.regions.peers.eu.url=redis://localhost")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.regions.peers"));
	}

	@Test
	void replicatingWhatIsNotReplicatedYetFailsStartUp() {
		this.runner.withPropertyValues("redkit.regions.local=eu", "redkit.regions.replicate=counters,budgets")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("redkit.regions.replicate")
				.hasMessageContaining("budgets"));
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
	void twoApplicationsInTwoRegionsConverge() {
		try (RedisServer eu = RedisServers.startStandalone(); RedisServer us = RedisServers.startStandalone()) {
			region(eu, "eu", "us", us).run((euApp) -> region(us, "us", "eu", eu).run((usApp) -> {
				RegionalCounters euCounters = euApp.getBean(RegionalCounters.class);
				RegionalCounters usCounters = usApp.getBean(RegionalCounters.class);
				euCounters.increment("campaign 42", 30);
				usCounters.increment("campaign 42", 12);
				usCounters.increment("campaign 42", -2);
				await().atMost(Duration.ofSeconds(20))
					.until(() -> euCounters.get("campaign 42") == 40 && usCounters.get("campaign 42") == 40);
			}));
		}
	}

	private static ApplicationContextRunner region(RedisServer local, String name, String peer,
			RedisServer peerServer) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
					RegionAutoConfiguration.class))
			.withPropertyValues(local.springProperties())
			.withPropertyValues("redkit.regions.local=" + name,
					"redkit.regions.peers." + peer + ".url=redis://127.0.0.1:" + peerServer.port(),
					"redkit.regions.replication.interval=20ms");
	}

}
