package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.region.RegionalBudgets.RegionalSpend;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.ScannedKeys;
import io.github.redkit.testsupport.TcpProxy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Regional changes applied once when the client sends them again: {@code eu} reaches its
 * Redis through a link cut after Redis applied a call and before its answer came back
 * ({@link TcpProxy#cutAfterNextWrite()}), so Lettuce reconnects and sends the same call
 * again (issue 43). The change must be counted once here, and what is shipped to
 * {@code us} once there: the peers' max-merge keeps whatever state was shipped, a doubled
 * one included.
 */
class RegionReplayTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private static final RedisKeyspace KEYSPACE = new RedisKeyspace("redkit");

	@PrivateRedis(count = 2)
	private static List<RedisServer> servers;

	@PrivateRedis(server = "servers")
	private static List<LettuceConnectionFactory> factories;

	private final TcpProxy link = TcpProxy.start(servers.get(0).port());

	private final LettuceConnectionFactory linked = this.link.connectionFactory(TIMEOUT);

	private final List<RegionReplicator> replicators = new ArrayList<>();

	@BeforeEach
	void emptyRegions() {
		servers.forEach(RedisServer::flushAll);
		this.replicators.add(replicator("eu", "us"));
		this.replicators.add(replicator("us", "eu"));
		// what the replicators do at their first round: each region holds its own slot
		this.replicators.forEach((replicator) -> RegionRecovery.over(List.of(replicator)).recover());
	}

	@AfterEach
	void close() {
		this.replicators.forEach(RegionReplicator::stop);
		this.linked.destroy();
		this.link.close();
	}

	@Test
	void anIncrementIsAppliedOnceAndShippedOnce() {
		RedisRegionalCounters eu = new RedisRegionalCounters(new RedisScriptRunner(this.linked), KEYSPACE, "eu",
				1_000_000, TIMEOUT);
		eu.setCommandTimeout(TIMEOUT);
		RedisRegionalCounters us = new RedisRegionalCounters(runner(1), KEYSPACE, "us", 1_000_000, TIMEOUT);
		// connected, and the script loaded, before the cut
		assertThat(eu.increment("warm", 1)).isOne();
		this.link.cutAfterNextWrite();
		long total = eu.increment("orders", 5);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(total).isEqualTo(5);
		assertThat(new RedisRegionalCounters(runner(0), KEYSPACE, "eu", 1_000_000, TIMEOUT).get("orders")).isEqualTo(5);
		ship();
		assertThat(us.get("orders")).as("shipped once").isEqualTo(5);
		// the generated id is kept for the replay window only: twice the command timeout
		StringRedisTemplate redis = new StringRedisTemplate(factories.get(0));
		Set<String> records = ScannedKeys.matching(redis, new RegionKeys(KEYSPACE).operation("orders", "once ") + "*");
		assertThat(records).hasSize(1);
		assertThat(records)
			.allSatisfy((record) -> assertThat(redis.getExpire(record, TimeUnit.MILLISECONDS)).isPositive()
				.isLessThanOrEqualTo(TIMEOUT.multipliedBy(2).toMillis()));
	}

	@Test
	void aRegionalSpendWithoutAnOperationIdIsAppliedOnceAndShippedOnce() {
		RedisRegionalBudgets eu = budgets("eu", new RedisScriptRunner(this.linked), Map.of("us", runner(1)));
		eu.setCommandTimeout(TIMEOUT);
		RedisRegionalBudgets us = budgets("us", runner(1), Map.of("eu", runner(0)));
		assertThat(eu.create("launch", 1_000)).isTrue();
		this.link.cutAfterNextWrite();
		RegionalSpend spent = eu.spend("launch", 100);
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(spent).isEqualTo(new RegionalSpend(true, 900, false));
		assertThat(budgets("eu", runner(0), Map.of("us", runner(1))).remaining("launch")).isEqualTo(900);
		ship();
		assertThat(us.remaining("launch")).as("shipped once").isEqualTo(900);
	}

	private void ship() {
		for (RegionReplicator replicator : this.replicators) {
			while (replicator.shipOnce() > 0) {
				// until nothing is left to ship
			}
		}
	}

	private RedisRegionalBudgets budgets(String region, RedisScriptRunner runner,
			Map<String, RedisScriptRunner> peers) {
		return new RedisRegionalBudgets(runner, peers, KEYSPACE, region, 1_000_000, Duration.ofHours(1), TIMEOUT);
	}

	private RegionReplicator replicator(String from, String to) {
		int origin = from.equals("eu") ? 0 : 1;
		return RegionReplicator.toPeer(new RegionShipping(from, 0, runner(origin), KEYSPACE,
				new RegionRounds(200, Duration.ofMillis(10), Duration.ofMillis(500)),
				new MicrometerRedkitMetrics(SimpleMeterRegistry::new)), to, runner(1 - origin));
	}

	private static RedisScriptRunner runner(int region) {
		return new RedisScriptRunner(factories.get(region));
	}

}
