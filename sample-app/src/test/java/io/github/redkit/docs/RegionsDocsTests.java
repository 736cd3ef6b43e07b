package io.github.redkit.docs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.redkit.autoconfigure.region.RegionProperties;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.region.RegionRecoveringException;
import io.github.redkit.region.RegionalBudgets;
import io.github.redkit.region.RegionalBudgets.RegionalSpend;
import io.github.redkit.region.RegionalCounters;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.test.boot.RedkitTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The snippets of {@code docs/multi-region.md}: region {@code eu} on the test's Redis,
 * its peer {@code us} on a second one; counters, shared and allotted budgets, a limit
 * marked global, and the full configuration bound as the application would.
 */
@SpringBootTest(classes = RegionsDocsTests.Application.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = { "spring.config.location=classpath:docs/regions.yml", "redkit.key-prefix=docs-regions" })
// a reset would look to the region like a Redis that lost its data
@RedkitTest(reset = RedkitTest.Reset.NONE)
class RegionsDocsTests {

	@Autowired
	RegionalCounters counters;

	@Autowired
	RegionalBudgets budgets;

	@Autowired
	RateLimiter rateLimiter;

	private final List<String> shipped = new ArrayList<>();

	@DynamicPropertySource
	static void usOnAnotherRedis(DynamicPropertyRegistry registry) {
		RedisServer us = RedisServers.oldest();
		registry.add("redkit.regions.peers.us.url", () -> "redis://localhost:" + us.port());
		registry.add("redkit.regions.replication.interval", () -> "20ms");
	}

	@Test
	void countersCountHere() {
		assertThat(count(this.counters)).isEqualTo(1);
	}

	long count(RegionalCounters counters) {
		// tag::counters[]
		// counters: the RegionalCounters bean (io.github.redkit.region)
		long seenHere = counters.increment("campaign-42:clicks", 1);
		long total = counters.get("campaign-42:clicks");
		// end::counters[]
		assertThat(total).isGreaterThanOrEqualTo(seenHere);
		return seenHere;
	}

	@Test
	void aSharedBudgetIsSpentAndRefundedHere() {
		awaitRecovered();
		assertThat(spend(this.budgets, "order-1", "refund-1")).isEqualTo(10_000);
		assertThat(this.shipped).containsExactly("order-1");
	}

	long spend(RegionalBudgets budgets, String orderId, String refundId) {
		// tag::shared[]
		// budgets: the RegionalBudgets bean (io.github.redkit.region); in one region
		budgets.create("campaign-42", 10_000);
		// in any region, one local round trip
		RegionalSpend spend = budgets.spend("campaign-42", 25, orderId);
		if (spend.spent()) {
			// spend.remaining(): what is left as this region sees it
			ship(orderId);
		}
		budgets.refund("campaign-42", 25, refundId);
		long left = budgets.remaining("campaign-42");
		// end::shared[]
		return left;
	}

	// a region whose Redis is new takes its slots from its peers before it changes a
	// budget
	private void awaitRecovered() {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (true) {
			try {
				this.budgets.create("probe", 1);
				return;
			}
			catch (RegionRecoveringException ex) {
				assertThat(System.nanoTime()).as("recovered in time").isLessThan(deadline);
				Thread.onSpinWait();
			}
		}
	}

	private void ship(String orderId) {
		this.shipped.add(orderId);
	}

	@Test
	void anAllottedBudgetIsSpentFromThisRegionsShare() {
		awaitRecovered();
		allot(this.budgets, "order-2", "borrow-1", "transfer-1");
	}

	void allot(RegionalBudgets budgets, String orderId, String requestId, String transferId) {
		// tag::allotted[]
		// in one region
		budgets.allot("campaign-7", Map.of("eu", 6_000L, "us", 4_000L));
		// from this region's share only
		RegionalSpend spend = budgets.spend("campaign-7", 25, orderId);
		// what this region may spend
		long mine = budgets.share("campaign-7");
		// every region's, as seen here
		Map<String, Long> all = budgets.shares("campaign-7");
		// ask the others for part of theirs
		long got = budgets.borrow("campaign-7", 500, requestId);
		// or give part of this region's
		long given = budgets.give("campaign-7", "us", 200, transferId);
		// end::allotted[]
		assertThat(spend.spent()).isTrue();
		assertThat(mine).isEqualTo(6_000 - 25);
		assertThat(all).containsEntry("eu", 6_000L - 25);
		assertThat(got).isBetween(0L, 500L);
		assertThat(given).isEqualTo(200);
	}

	@Test
	void theGlobalLimitIsDecidedHere() {
		assertThat(this.rateLimiter.tryAcquire("api", "user:ann").allowed()).isTrue();
	}

	@Test
	void theFullConfigurationBinds() throws Exception {
		MutablePropertySources sources = new MutablePropertySources();
		for (PropertySource<?> source : new YamlPropertySourceLoader().load("regions-config",
				new ClassPathResource("docs/regions-config.yml"))) {
			sources.addLast(source);
		}
		RegionProperties regions = new Binder(ConfigurationPropertySources.from(sources))
			.bind("redkit.regions", RegionProperties.class)
			.get();
		assertThat(regions.getLocal()).isEqualTo("eu");
		assertThat(regions.getPeers()).containsOnlyKeys("us", "ap", "sa", "af");
		assertThat(regions.getPeers().get("af").getSentinel().getNodes()).hasSize(2);
		assertThat(regions.getReplication().getInterval()).isEqualTo(Duration.ofMillis(100));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
