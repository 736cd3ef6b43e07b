package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.PreparedLimit;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.ProxiedCluster;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import io.github.redkit.testsupport.TcpProxy;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rate-limit decisions on a Redis Cluster when Lettuce sends them again (issue 43): every
 * master of a cluster owned by this class is reached through a {@link TcpProxy} of its
 * own (each node announces its proxy's port), so a test can cut one master's connection
 * after the write. A decision cut after the write, also after a {@code MOVED} redirection
 * sent it to another master, is counted once and its caller meets the failure mode; a
 * decision redirected by {@code MOVED} or {@code ASK} (not applied where it was first
 * sent) is sent on and decides as usual.
 */
class RateLimitClusterReplayTests {

	// long enough for a cold first call on a loaded machine
	private static final Duration TIMEOUT = Duration.ofSeconds(15);

	private static final RateLimitPolicy TEN_AN_HOUR = RateLimitPolicy
		.slidingWindow(RateLimitWindow.of(10, Duration.ofHours(1)));

	@PrivateRedis(cluster = true)
	private static RedisServer cluster;

	@PrivateRedis
	private static ProxiedCluster proxied;

	private final LettuceConnectionFactory factory = proxied.connectionFactory(TIMEOUT);

	private final RedisKeyspace keyspace = new RedisKeyspace("rlcr-" + UUID.randomUUID());

	private final String limit = "api";

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	@AfterEach
	void close() {
		this.factory.destroy();
	}

	@Test
	void aDecisionCutAfterTheWriteIsCountedOnceAndTheCallerMeetsTheFailureMode() {
		RateLimiter limiter = limiter(RateLimitFailureMode.ALLOW);
		String identifier = fresh();
		int master = masterOf(identifier);
		// connected to that master, and the script loaded there, before the cut
		warmUp(limiter, master);
		TcpProxy link = proxied.link(master);
		int cuts = link.cutsAfterWrite();
		link.cutAfterNextWrite();
		RateLimitDecision decision = limiter.tryAcquire(this.limit, identifier);
		assertThat(link.cutsAfterWrite()).isEqualTo(cuts + 1);
		assertThat(limiter(RateLimitFailureMode.DENY).tryAcquire(this.limit, identifier).remaining())
			.as("the cut call counted once")
			.isEqualTo(8);
		assertThat(decision.allowed()).isTrue();
		assertThat(decisions("replay-dropped")).isOne();
	}

	@Test
	void aDecisionRedirectedByMovedDecidesAsUsual() {
		RateLimiter limiter = limiter(RateLimitFailureMode.DENY);
		String identifier = fresh();
		int from = masterOf(identifier);
		int to = anotherMaster(from);
		// the client's view of the slots is taken before the slot moves
		warmUp(limiter, from);
		long moved = redirections(from, "MOVED");
		moveSlot(identifier, from, to, true);
		RateLimitDecision decision = limiter.tryAcquire(this.limit, identifier);
		assertThat(redirections(from, "MOVED")).as("redirected").isEqualTo(moved + 1);
		assertThat(decision.allowed()).isTrue();
		assertThat(decision.remaining()).isEqualTo(9);
		assertThat(limiter.tryAcquire(this.limit, identifier).remaining()).isEqualTo(8);
		assertThat(decisions("failed-closed")).isZero();
	}

	@Test
	void aDecisionRedirectedByAskDecidesAsUsual() {
		RateLimiter limiter = limiter(RateLimitFailureMode.DENY);
		String identifier = fresh();
		int from = masterOf(identifier);
		int to = anotherMaster(from);
		warmUp(limiter, from);
		long asked = redirections(from, "ASK");
		// the slot being migrated, its key not on the first master yet: ASK
		moveSlot(identifier, from, to, false);
		try {
			RateLimitDecision decision = limiter.tryAcquire(this.limit, identifier);
			assertThat(redirections(from, "ASK")).as("redirected").isGreaterThan(asked);
			assertThat(decision.allowed()).isTrue();
			assertThat(decision.remaining()).isEqualTo(9);
			assertThat(decisions("failed-closed")).isZero();
		}
		finally {
			finishMove(identifier, to);
		}
	}

	@Test
	void aDecisionCutAfterTheWriteThatFollowedItsMovedRedirectionIsCountedOnce() {
		RateLimiter limiter = limiter(RateLimitFailureMode.ALLOW);
		String identifier = fresh();
		int from = masterOf(identifier);
		int to = anotherMaster(from);
		// connected to both masters, and the script loaded on both, before the cut
		warmUp(limiter, from);
		warmUp(limiter, to);
		long moved = redirections(from, "MOVED");
		moveSlot(identifier, from, to, true);
		TcpProxy link = proxied.link(to);
		int cuts = link.cutsAfterWrite();
		link.cutAfterNextWrite();
		// sent to the first master, redirected, written to the second and cut there
		RateLimitDecision decision = limiter.tryAcquire(this.limit, identifier);
		assertThat(redirections(from, "MOVED")).as("redirected").isEqualTo(moved + 1);
		assertThat(link.cutsAfterWrite()).isEqualTo(cuts + 1);
		assertThat(limiter(RateLimitFailureMode.DENY).tryAcquire(this.limit, identifier).remaining())
			.as("the cut call counted once")
			.isEqualTo(8);
		assertThat(decision.allowed()).isTrue();
		assertThat(decisions("replay-dropped")).isOne();
	}

	/**
	 * A settlement whose charges went to two masters, one cut after the write (its
	 * re-send dropped) and one refused by Redis: the settlement is counted
	 * {@code failed}, not {@code replay-dropped}, which would hide the other failure
	 * (review of issue 43).
	 */
	@Test
	void aSettlementWhoseChargeWasDroppedOnOneMasterAndFailedOnAnotherIsCountedFailed() {
		RateLimiter limiter = limiter(RateLimitFailureMode.ALLOW);
		String cut = fresh();
		int cutMaster = masterOf(cut);
		String refused;
		do {
			refused = fresh();
		}
		while (masterOf(refused) == cutMaster);
		int refusingMaster = masterOf(refused);
		warmUp(limiter, cutMaster);
		warmUp(limiter, refusingMaster);
		RateLimitReservation reservation = limiter.reserve(this.limit, List.of(cut, refused), 1);
		assertThat(reservation.decision().allowed()).isTrue();
		// the refusing master's record becomes a hash: its charge fails with WRONGTYPE
		String refusedKey = PreparedLimit.of(this.limit, TEN_AN_HOUR, this.keyspace).key(refused);
		try (RespClient node = cluster.client(refusingMaster)) {
			node.call("DEL", refusedKey);
			node.call("HSET", refusedKey, "not", "a record");
		}
		TcpProxy link = proxied.link(cutMaster);
		int cuts = link.cutsAfterWrite();
		link.cutAfterNextWrite();
		assertThat(reservation.settle(5)).isFalse();
		assertThat(link.cutsAfterWrite()).isEqualTo(cuts + 1);
		assertThat(limiter(RateLimitFailureMode.DENY).tryAcquire(this.limit, cut).remaining())
			.as("the cut charge applied once")
			.isEqualTo(4);
		assertThat(settlements("failed")).isOne();
		assertThat(settlements("replay-dropped")).isZero();
	}

	private RateLimiter limiter(RateLimitFailureMode mode) {
		return new RedisRateLimiter(new RedisScriptRunner(this.factory), this.keyspace, Map.of(this.limit, TEN_AN_HOUR),
				new RateLimitSettings(mode, TIMEOUT, Duration.ZERO), new MicrometerRedkitMetrics(() -> this.registry),
				RedkitObservations.NONE);
	}

	/**
	 * One decision on another identifier of the same master: the connection to it is made
	 * and the script loaded there.
	 */
	private void warmUp(RateLimiter limiter, int master) {
		String identifier;
		do {
			identifier = fresh();
		}
		while (masterOf(identifier) != master);
		assertThat(limiter.tryAcquire(this.limit, identifier).allowed()).isTrue();
	}

	private double settlements(String outcome) {
		Counter counter = this.registry.find("redkit.ratelimit.settlements").tags("outcome", outcome).counter();
		return (counter != null) ? counter.count() : 0;
	}

	private double decisions(String outcome) {
		Counter counter = this.registry.find("redkit.ratelimit.decisions").tags("outcome", outcome).counter();
		return (counter != null) ? counter.count() : 0;
	}

	private static String fresh() {
		return "user-" + UUID.randomUUID();
	}

	private int slotOf(String identifier) {
		return ClusterSlotHashUtil
			.calculateSlot(PreparedLimit.of(this.limit, TEN_AN_HOUR, this.keyspace).key(identifier));
	}

	/** The port of the master that serves an identifier's slot now. */
	private int masterOf(String identifier) {
		return proxied.masterOf(slotOf(identifier));
	}

	private static int anotherMaster(int master) {
		return cluster.ports().stream().filter((port) -> port != master).findFirst().orElseThrow();
	}

	/**
	 * Moves an identifier's slot to another master the way {@code redis-cli --cluster
	 * reshard} does: importing, migrating, its keys moved, and, when finished, the slot
	 * given to the new master on every node.
	 */
	private void moveSlot(String identifier, int from, int to, boolean finish) {
		String slot = String.valueOf(slotOf(identifier));
		String fromId = nodeId(from);
		String toId = nodeId(to);
		try (RespClient target = cluster.client(to); RespClient source = cluster.client(from)) {
			target.call("CLUSTER", "SETSLOT", slot, "IMPORTING", fromId);
			source.call("CLUSTER", "SETSLOT", slot, "MIGRATING", toId);
			Object keys = source.call("CLUSTER", "GETKEYSINSLOT", slot, "1000");
			// MIGRATE host port "" db timeout KEYS key...: the empty key names none,
			// and MIGRATE's KEYS option (not the KEYS command) lists the keys to move
			List<String> migrate = new ArrayList<>(
					List.of("MIGRATE", RedisServer.HOST, String.valueOf(to), "", "0", "5000", "KEYS"));
			int withoutKeys = migrate.size();
			((List<?>) keys).forEach((key) -> migrate.add(key.toString()));
			if (migrate.size() > withoutKeys) {
				source.call(migrate.toArray(String[]::new));
			}
		}
		if (finish) {
			finishMove(identifier, to);
		}
	}

	private void finishMove(String identifier, int to) {
		String slot = String.valueOf(slotOf(identifier));
		String toId = nodeId(to);
		cluster.callOnEveryNode("CLUSTER", "SETSLOT", slot, "NODE", toId);
	}

	private static String nodeId(int port) {
		try (RespClient node = cluster.client(port)) {
			return node.callForString("CLUSTER", "MYID");
		}
	}

	/** How many redirections of a kind a master answered ({@code INFO errorstats}). */
	private static long redirections(int master, String kind) {
		try (RespClient node = cluster.client(master)) {
			return node.callForString("INFO", "errorstats")
				.lines()
				.filter((line) -> line.startsWith("errorstat_" + kind + ":count="))
				.mapToLong((line) -> Long.parseLong(line.substring(line.indexOf('=') + 1).trim()))
				.findFirst()
				.orElse(0);
		}
	}

}
