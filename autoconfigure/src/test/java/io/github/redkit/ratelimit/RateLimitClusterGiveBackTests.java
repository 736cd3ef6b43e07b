package io.github.redkit.ratelimit;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.PermitGiveBack;
import io.github.redkit.ratelimit.internal.PreparedLimit;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisTopology;
import io.github.redkit.testsupport.RespClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * On a Redis Cluster, a decision over identifiers in several slots gives back what the
 * slots that allowed took when another slot refuses the call or does not answer in time;
 * the give-back is retried, applied once and counted. Freezing one master is done with
 * {@code CLIENT PAUSE ... ALL} on that node of a cluster owned by this class (the shared
 * one must not be paused).
 */
class RateLimitClusterGiveBackTests {

	private static final RateLimitPolicy TWO_PER_HOUR = RateLimitPolicy
		.slidingWindow(RateLimitWindow.of(2, Duration.ofHours(1)));

	private static final RateLimitPolicy MANY_PER_SECOND = RateLimitPolicy
		.slidingWindow(RateLimitWindow.of(1_000_000, Duration.ofSeconds(1)));

	@PrivateRedis(cluster = true)
	private static RedisServer ownCluster;

	@PrivateRedis
	private static LettuceConnectionFactory ownFactory;

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final String limit = "gb-" + UUID.randomUUID();

	private final RedisKeyspace keyspace = new RedisKeyspace("gb-test");

	@Test
	void whenOneSlotRefusesThePermitTheOtherSlotTookComesBackAndIsCounted() {
		RedisServer cluster = RedisTopology.CLUSTER.server();
		RateLimiter limiter = limiter(RedisTopology.CLUSTER.connectionFactory(), LimitFailureMode.ALLOW);
		List<String> identifiers = identifiersOnTwoMasters(cluster);
		String fresh = identifiers.get(0);
		String exhausted = identifiers.get(1);
		warmUp(limiter, identifiers);
		limiter.tryAcquire(this.limit, exhausted);
		limiter.tryAcquire(this.limit, exhausted);
		assertThat(limiter.tryAcquire(this.limit, List.of(fresh, exhausted), 1).allowed()).isFalse();
		await().atMost(Duration.ofSeconds(5)).until(() -> refunds("given-back") == 1);
		assertThat(limiter.tryAcquire(this.limit, fresh).remaining())
			.as("nothing of the refused call is left on '" + fresh + "'")
			.isEqualTo(1);
		assertThat(refunds("failed")).isZero();
	}

	@Test
	void whenOneSlotTimesOutThePermitTheOtherSlotTookComesBackAndIsCounted() {
		RateLimiter limiter = limiter(ownFactory, LimitFailureMode.DENY);
		List<String> identifiers = identifiersOnTwoMasters(ownCluster);
		String answering = identifiers.get(0);
		String frozen = identifiers.get(1);
		// connections to both masters are made before one of them freezes
		warmUp(limiter, identifiers);
		limiter.tryAcquire(this.limit, answering);
		limiter.tryAcquire(this.limit, frozen);
		try (RespClient admin = ownCluster.client(portOf(ownCluster, frozen))) {
			// every client of that master is paused, this one too: the pause ends by
			// itself
			admin.call("CLIENT", "PAUSE", "1500", "ALL");
		}
		assertThatExceptionOfType(RateLimiterUnavailableException.class)
			.isThrownBy(() -> limiter.tryAcquire(this.limit, List.of(frozen, answering), 1));
		// the frozen master answers when it wakes up; its permit comes back too
		await().atMost(Duration.ofSeconds(10)).until(() -> refunds("given-back") == 2);
		assertThat(limiter.tryAcquire(this.limit, answering).remaining()).isZero();
		assertThat(limiter.tryAcquire(this.limit, frozen).remaining()).isZero();
		assertThat(refunds("failed")).isZero();
	}

	@Test
	void aGiveBackIsRetriedWhileItsMasterIsFrozenAndAppliedOnce() {
		RateLimiter limiter = limiter(ownFactory, LimitFailureMode.ALLOW);
		String identifier = identifiersOnTwoMasters(ownCluster).get(0);
		warmUp(limiter, List.of(identifier));
		limiter.tryAcquire(this.limit, identifier);
		assertThat(limiter.tryAcquire(this.limit, identifier).remaining()).isZero();
		PreparedLimit prepared = PreparedLimit.of(this.limit, TWO_PER_HOUR, this.keyspace);
		pause(identifier, 700);
		// the first attempt times out (300 ms), a later one reaches the master once it
		// wakes up
		assertThat(giveBack().giveBack(prepared, List.of(prepared.key(identifier)), 1, decidedNow()))
			.succeedsWithin(Duration.ofSeconds(10))
			.isEqualTo(true);
		assertThat(refunds("given-back")).isOne();
		// the attempts that timed out ran too when the master woke up: one permit came
		// back, not one per attempt
		assertThat(limiter.tryAcquire(this.limit, identifier).remaining()).isZero();
		assertThat(limiter.tryAcquire(this.limit, identifier).allowed()).isFalse();
	}

	@Test
	void aGiveBackThatNoAttemptConfirmsIsCountedAsFailedAndStillAppliedAtMostOnce() {
		RateLimiter limiter = limiter(ownFactory, LimitFailureMode.ALLOW);
		String identifier = identifiersOnTwoMasters(ownCluster).get(0);
		warmUp(limiter, List.of(identifier));
		limiter.tryAcquire(this.limit, identifier);
		limiter.tryAcquire(this.limit, identifier);
		PreparedLimit prepared = PreparedLimit.of(this.limit, TWO_PER_HOUR, this.keyspace);
		// longer than every attempt and backoff together (4 x 300 ms + 350 ms)
		pause(identifier, 4000);
		assertThat(giveBack().giveBack(prepared, List.of(prepared.key(identifier)), 1, decidedNow()))
			.succeedsWithin(Duration.ofSeconds(10))
			.isEqualTo(false);
		assertThat(refunds("failed")).isOne();
		assertThat(refunds("given-back")).isZero();
		// no decision is sent while the master sleeps (it would run late and take a
		// permit): a raw PING waits for it to wake up
		try (RespClient client = ownCluster.client(portOf(ownCluster, identifier))) {
			assertThat(client.callForString("PING")).isEqualTo("PONG");
		}
		// the unanswered attempts ran then, on the connection the next decision uses, and
		// gave back once
		RateLimitDecision decision = limiter.tryAcquire(this.limit, identifier);
		assertThat(decision.allowed()).isTrue();
		assertThat(decision.remaining()).isZero();
		assertThat(limiter.tryAcquire(this.limit, identifier).allowed()).isFalse();
	}

	private PermitGiveBack giveBack() {
		return new PermitGiveBack(new RedisScriptRunner(ownFactory), Duration.ofMillis(300),
				new MicrometerRedkitMetrics(() -> this.registry));
	}

	private void pause(String identifier, int millis) {
		try (RespClient admin = ownCluster.client(portOf(ownCluster, identifier))) {
			// every client of that master is paused, this one too: the pause ends by
			// itself
			admin.call("CLIENT", "PAUSE", String.valueOf(millis), "ALL");
		}
	}

	private RateLimiter limiter(RedisConnectionFactory factory, LimitFailureMode failureMode) {
		return new RedisRateLimiter(new RedisScriptRunner(factory), this.keyspace,
				Map.of(this.limit, TWO_PER_HOUR, "warm-up", MANY_PER_SECOND),
				new RateLimitSettings(failureMode, Duration.ofMillis(300), Duration.ZERO),
				new MicrometerRedkitMetrics(() -> this.registry), RedkitObservations.NONE);
	}

	/**
	 * Waits until the limiter has its connections to the masters of the identifiers, so
	 * that the first decisions of a test are not given up while they are being made.
	 */
	private static void warmUp(RateLimiter limiter, List<String> identifiers) {
		for (String identifier : identifiers) {
			await().atMost(Duration.ofSeconds(10))
				.ignoreExceptions()
				.until(() -> limiter.tryAcquire("warm-up", identifier).remaining() >= 0);
		}
	}

	private double refunds(String outcome) {
		Counter counter = this.registry.find("redkit.ratelimit.refunds")
			.tags("limit", this.limit, "outcome", outcome)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	/**
	 * Two identifiers whose keys live on different masters.
	 */
	private List<String> identifiersOnTwoMasters(RedisServer cluster) {
		List<String> identifiers = new ArrayList<>();
		int firstPort = -1;
		for (int i = 0; identifiers.size() < 2; i++) {
			String identifier = "user-" + i;
			int port = portOf(cluster, identifier);
			if (identifiers.isEmpty() || port != firstPort) {
				identifiers.add(identifier);
				firstPort = (firstPort == -1) ? port : firstPort;
			}
		}
		return identifiers;
	}

	private int portOf(RedisServer cluster, String identifier) {
		String key = PreparedLimit.of(this.limit, TWO_PER_HOUR, this.keyspace).key(identifier);
		return cluster.masterOf(ClusterSlotHashUtil.calculateSlot(key));
	}

	/**
	 * A decision's reply that took its permits now, as the give-back reads it.
	 */
	private static byte[] decidedNow() {
		return ByteBuffer.allocate(48).order(ByteOrder.LITTLE_ENDIAN).putDouble(40, System.currentTimeMillis()).array();
	}

}
