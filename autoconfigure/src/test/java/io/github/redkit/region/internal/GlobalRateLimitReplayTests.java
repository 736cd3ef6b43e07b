package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitReservation;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.RateLimiterUnavailableException;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import io.github.redkit.testsupport.TcpProxy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * A limit marked global when Lettuce sends a call again, on two real Redis servers as two
 * regions: the connection to this region's Redis is cut after Redis applied the call and
 * before its answer came back ({@link TcpProxy#cutAfterNextWrite()}), so Lettuce
 * reconnects and sends it again (issue 43). A decision is counted, and shipped, once (its
 * re-send is dropped and the caller meets the failure mode); a give-back is applied once
 * in every region.
 */
class GlobalRateLimitReplayTests {

	private static final RedisKeyspace KEYSPACE = new RedisKeyspace("redkit");

	// long enough for a cold first call on a loaded machine
	private static final Duration TIMEOUT = Duration.ofSeconds(15);

	private static final RateLimitPolicy HUNDRED_AN_HOUR = RateLimitPolicy
		.slidingWindow(RateLimitWindow.of(100, Duration.ofHours(1)));

	@PrivateRedis
	private static RedisServer eu;

	@PrivateRedis
	private static RedisServer us;

	@PrivateRedis(server = "eu")
	private static LettuceConnectionFactory euFactory;

	@PrivateRedis(server = "us")
	private static LettuceConnectionFactory usFactory;

	private final RegionOutbox outbox = new RegionOutbox(KEYSPACE, "eu", 1_000_000);

	private TcpProxy link;

	private LettuceConnectionFactory linkFactory;

	private RegionReplicator euToUs;

	private RateLimiter euLimiter;

	private RateLimiter euDirect;

	private RateLimiter usLimiter;

	@BeforeEach
	void regions() {
		eu.flushAll();
		us.flushAll();
		this.link = TcpProxy.start(eu.port());
		this.linkFactory = this.link.connectionFactory(TIMEOUT);
		this.euLimiter = limiter("eu", this.linkFactory);
		this.euDirect = limiter("eu", euFactory);
		this.usLimiter = limiter("us", usFactory);
		this.euToUs = RegionReplicator.toPeer(new RegionShipping("eu", 0, new RedisScriptRunner(euFactory), KEYSPACE,
				new RegionRounds(200, Duration.ofMillis(10), Duration.ofMillis(500)),
				new MicrometerRedkitMetrics(SimpleMeterRegistry::new)), "us", new RedisScriptRunner(usFactory));
		this.euToUs.start();
		// connected, and the scripts loaded, before the cut
		assertThat(this.euLimiter.tryAcquire("api", "warm-up").allowed()).isTrue();
	}

	@AfterEach
	void stop() {
		this.euToUs.stop();
		this.linkFactory.destroy();
		this.link.close();
	}

	@Test
	void aDecisionIsCountedAndShippedOnce() {
		long shipped = outboxLength();
		this.link.cutAfterNextWrite();
		Throwable refused = catchThrowable(() -> this.euLimiter.tryAcquire("api", "tenant"));
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(outboxLength()).as("shipped once").isEqualTo(shipped + 1);
		assertThat(remaining(this.euDirect)).as("counted once here").isEqualTo(100 - 1);
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(20))
			.untilAsserted(() -> assertThat(remaining(this.usLimiter)).as("and there").isEqualTo(100 - 1));
		// applied once, its answer lost: the caller meets the failure mode (deny)
		assertThat(refused).isInstanceOf(RateLimiterUnavailableException.class);
	}

	@Test
	void aDroppedDecisionFailsThatCallOnlyAndStartsNoCooldown() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		RateLimiter limiter = limiter("eu", this.linkFactory, Duration.ofHours(1), registry);
		assertThat(limiter.tryAcquire("api", "warm-up").allowed()).isTrue();
		this.link.cutAfterNextWrite();
		Throwable refused = catchThrowable(() -> limiter.tryAcquire("api", "tenant"));
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(refused).isInstanceOf(RateLimiterUnavailableException.class);
		// Redis answered the PING sent in the call's place: the next call is decided by
		// it
		RateLimitDecision next = limiter.tryAcquire("api", "tenant");
		assertThat(next.remaining()).as("decided by Redis, the cut call counted once").isEqualTo(100 - 2);
		assertThat(registry.find("redkit.ratelimit.decisions").tags("outcome", "replay-dropped").counter()).isNotNull()
			.satisfies((counter) -> assertThat(counter.count()).isOne());
	}

	@Test
	void aGiveBackIsAppliedOnceInEveryRegion() {
		RateLimitReservation reservation = this.euLimiter.reserve("api", List.of("tenant"), 30);
		assertThat(reservation.allowed()).isTrue();
		this.link.cutAfterNextWrite();
		assertThat(reservation.settle(5)).isTrue();
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(remaining(this.euDirect)).as("25 given back once").isEqualTo(100 - 5);
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(20))
			.untilAsserted(() -> assertThat(remaining(this.usLimiter)).isEqualTo(100 - 5));
	}

	private long outboxLength() {
		try (RespClient client = eu.client(eu.port())) {
			return Long.parseLong(client.callForString("XLEN", this.outbox.stream("api")));
		}
	}

	private static RateLimiter limiter(String region, LettuceConnectionFactory factory) {
		return limiter(region, factory, Duration.ZERO, new SimpleMeterRegistry());
	}

	private static RateLimiter limiter(String region, LettuceConnectionFactory factory, Duration cooldown,
			SimpleMeterRegistry registry) {
		RedisScriptRunner runner = new RedisScriptRunner(factory);
		return new RedisRateLimiter(runner, KEYSPACE, Map.of("api", HUNDRED_AN_HOUR),
				new RateLimitSettings(LimitFailureMode.DENY, TIMEOUT, cooldown),
				new MicrometerRedkitMetrics(() -> registry), RedkitObservations.NONE,
				List.of(new GlobalRateLimitDecider(runner, new RegionOutbox(KEYSPACE, region, 1_000_000),
						Set.of("api"))));
	}

	/** What a one-permit look at "tenant" finds left once the look is counted out. */
	private static long remaining(RateLimiter limiter) {
		RateLimitReservation look = limiter.reserve("api", List.of("tenant"), 1);
		assertThat(look.giveBackAsync().join()).isTrue();
		return look.decision().remaining() + 1;
	}

}
