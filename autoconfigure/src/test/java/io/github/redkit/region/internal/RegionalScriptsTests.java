package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.region.RegionalCounters;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * The region scripts, called directly against a real Redis, standalone and cluster: an
 * increment applies and queues in one call, an applied entry is a {@code max}, the
 * shipped position never moves back, and a region on a cluster ships and re-seeds.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class RegionalScriptsTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private static final LuaScript<List> APPLY = LuaScript.load("region_apply", List.class);

	private static final LuaScript<Long> ADVANCE = LuaScript.load("region_advance", Long.class);

	@PrivateRedis
	private static RedisServer peer;

	@PrivateRedis
	private static LettuceConnectionFactory peerFactory;

	@Parameter
	RedisTopology topology;

	private RedisScriptRunner runner;

	private StringRedisTemplate redis;

	private RedisKeyspace keyspace;

	private RegionKeys keys;

	@BeforeEach
	void connect() {
		this.runner = new RedisScriptRunner(this.topology.connectionFactory());
		this.redis = this.runner.template();
		this.keyspace = new RedisKeyspace("redkit-test-" + UUID.randomUUID());
		this.keys = new RegionKeys(this.keyspace);
	}

	@Test
	void anIncrementAppliesAndQueuesTheSlotsStateInOneCall() {
		RegionalCounters counters = new RedisRegionalCounters(this.runner, this.keyspace, "eu", 1000, TIMEOUT);
		assertThat(counters.increment("c", 5)).isEqualTo(5);
		assertThat(counters.increment("c", -2)).isEqualTo(3);
		assertThat(this.redis.opsForHash().entries(this.keys.counter("c"))).containsOnly(entry("p:eu", "5"),
				entry("n:eu", "2"));
		assertThat(this.redis.opsForValue().get(this.keys.sequence())).isEqualTo("2");
		assertThat(this.redis.opsForStream().range(this.keys.outbox(), Range.unbounded()))
			.extracting((record) -> record.getValue())
			.containsExactly(Map.of("seq", "1", "counter", "c", "p", "5", "n", "0"),
					Map.of("seq", "2", "counter", "c", "p", "5", "n", "2"));
	}

	@Test
	void largeTotalsStayExact() {
		RegionalCounters counters = new RedisRegionalCounters(this.runner, this.keyspace, "eu", 1000, TIMEOUT);
		long large = 9_007_199_254_740_000L;
		assertThat(counters.increment("big", large)).isEqualTo(large);
		assertThat(counters.increment("big", 991)).isEqualTo(large + 991);
		assertThat(this.redis.opsForStream().range(this.keys.outbox(), Range.unbounded()).get(1).getValue())
			.containsEntry("p", Long.toString(large + 991));
	}

	@Test
	void anAppliedEntryKeepsTheLargerSlotSoDuplicatesAndOldEntriesChangeNothing() {
		List<String> keys = List.of(this.keys.received(), this.keys.counter("c"));
		assertThat(apply(keys, "us", "2", "10", "3", "0")).containsExactly(1L, 0L, 0L);
		// older, then the same again
		assertThat(apply(keys, "us", "1", "5", "1", "0")).containsExactly(0L, 1L, 2L);
		assertThat(apply(keys, "us", "2", "10", "3", "0")).containsExactly(0L, 1L, 2L);
		assertThat(this.redis.opsForHash().entries(this.keys.counter("c"))).containsOnly(entry("p:us", "10"),
				entry("n:us", "3"));
		assertThat(new RedisRegionalCounters(this.runner, this.keyspace, "eu", 1000, TIMEOUT).get("c")).isEqualTo(7);
		assertThat(this.redis.opsForHash().get(this.keys.received(), "us")).isEqualTo("2");
		assertThat(this.redis.getExpire(this.keys.counter("c"))).as("lives until deleted").isEqualTo(-1);
		// an entry with a TTL (a rate limit's sub-window) expires that long after it is
		// applied
		List<String> expiring = List.of(this.keys.received(), this.keys.counter("window"));
		assertThat(apply(expiring, "us", "3", "4", "0", "60000")).containsExactly(1L, 0L, 2L);
		assertThat(this.redis.getExpire(this.keys.counter("window"), TimeUnit.MILLISECONDS)).isBetween(1L, 60_000L);
	}

	@Test
	void aRecoveredSlotLivesAsLongAsItsCounterWhenAnAppliedEntryExtendsIt() {
		String counter = this.keys.counter("rl.x.0.1");
		String recovered = this.keys.recoveredSlot(counter);
		// as region_recover leaves a sub-window counter whose own slot it gave back: both
		// expire at once
		this.redis.opsForHash().put(counter, "p:eu", "7");
		this.redis.expire(counter, Duration.ofMillis(60_000));
		this.redis.opsForValue().set(recovered, "7|0|1-0", Duration.ofMillis(60_000));
		// a peer's entry moves the counter: it lives 600 s from now, and so does the slot
		assertThat(apply(List.of(this.keys.received(), counter), "us", "1", "4", "0", "600000")).containsExactly(1L, 0L,
				0L);
		long counterTtl = this.redis.getExpire(counter, TimeUnit.MILLISECONDS);
		assertThat(counterTtl).isGreaterThan(60_000L);
		// the script's two PEXPIREs may fall in two milliseconds (a server that does not
		// freeze its clock during a script): the slot's end 1 ms after the counter's
		assertThat(this.redis.getExpire(recovered, TimeUnit.MILLISECONDS)).isGreaterThan(60_000L)
			.isLessThanOrEqualTo(counterTtl + 1);
		// an entry that changes nothing extends neither
		assertThat(apply(List.of(this.keys.received(), counter), "us", "1", "4", "0", "900000")).containsExactly(0L, 1L,
				1L);
		assertThat(this.redis.getExpire(recovered, TimeUnit.MILLISECONDS)).isLessThanOrEqualTo(600_000L);
		// a counter without a recovered slot gets none
		String other = this.keys.counter("rl.x.0.2");
		apply(List.of(this.keys.received(), other), "us", "2", "4", "0", "600000");
		assertThat(this.redis.hasKey(this.keys.recoveredSlot(other))).isFalse();
	}

	@Test
	void theShippedPositionNeverMovesBack() {
		List<String> shipped = List.of(this.keys.shipped("us"));
		assertThat(this.runner.execute(ADVANCE, TIMEOUT, shipped, "100-0|5")).isOne();
		assertThat(this.runner.execute(ADVANCE, TIMEOUT, shipped, "90-0|4")).isZero();
		assertThat(this.runner.execute(ADVANCE, TIMEOUT, shipped, "100-0|5")).isZero();
		assertThat(this.redis.opsForValue().get(this.keys.shipped("us"))).isEqualTo("100-0|5");
	}

	@Test
	void aCompareAndDeleteIsOneDeleteIfEqualOnAServerThatHasIt() {
		// the runner as the application has it: connected, the server's commands read
		this.runner.connectInBackground().join();
		String flag = this.keys.reseed("us");
		this.redis.opsForValue().set(flag, "token-1");
		// loads the script where it is the delete (on a cluster, on the key's node)
		assertThat(this.runner.execute(RegionReplicator.COMPARE_DELETE, TIMEOUT, List.of(flag), "none")).isZero();
		CommandStats before = this.topology.server().commandStats();
		// a flag set again meanwhile stays; the one read goes, once
		assertThat(this.runner.execute(RegionReplicator.COMPARE_DELETE, TIMEOUT, List.of(flag), "token-0")).isZero();
		assertThat(this.runner.execute(RegionReplicator.COMPARE_DELETE, TIMEOUT, List.of(flag), "token-1")).isOne();
		assertThat(this.runner.execute(RegionReplicator.COMPARE_DELETE, TIMEOUT, List.of(flag), "token-1")).isZero();
		CommandStats used = this.topology.server().commandStats().since(before);
		assertThat(this.redis.hasKey(flag)).isFalse();
		// Valkey 9's DELIFEQ is the compare-and-delete; the others run the script
		boolean deleteIfEqual = this.topology == RedisTopology.VALKEY_9;
		assertThat(used.calls("delifeq")).as(used.toString()).isEqualTo(deleteIfEqual ? 3 : 0);
		assertThat(used.calls("evalsha") + used.calls("eval")).as(used.toString()).isEqualTo(deleteIfEqual ? 0 : 3);
	}

	@Test
	void aRegionOnThisTopologyShipsAndReseedsAPeer() {
		// the peer is the class's, shared by every topology's run: the keyspace is the
		// test's own
		RedisScriptRunner peerRunner = new RedisScriptRunner(peerFactory);
		RegionalCounters eu = new RedisRegionalCounters(this.runner, this.keyspace, "eu", 10, TIMEOUT);
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		RedkitMetrics metrics = new MicrometerRedkitMetrics(() -> meters);
		RegionReplicator euToUs = RegionReplicator.toPeer(new RegionShipping("eu", 0, this.runner, this.keyspace,
				new RegionRounds(50, Duration.ofMillis(10), TIMEOUT), metrics), "us", peerRunner);
		eu.increment("early", 3);
		for (int i = 0; i < 500; i++) {
			eu.increment("late {x}", 1);
		}
		while (euToUs.shipOnce() > 0) {
			// drains
		}
		RegionalCounters us = new RedisRegionalCounters(peerRunner, this.keyspace, "us", 10, TIMEOUT);
		assertThat(us.get("early")).isEqualTo(3);
		assertThat(us.get("late {x}")).isEqualTo(500);
		assertThat(meters.get("redkit.regions.replication.reseeds").counter().count()).isOne();
	}

	@SuppressWarnings("unchecked")
	private List<Object> apply(List<String> keys, String... args) {
		return (List<Object>) this.runner.execute(APPLY, TIMEOUT, keys, args);
	}

}
