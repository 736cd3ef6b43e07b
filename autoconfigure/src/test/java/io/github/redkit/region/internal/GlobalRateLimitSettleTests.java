package io.github.redkit.region.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitReservation;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import io.github.redkit.testsupport.ScannedKeys;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Settling a limit marked global while this region's Redis does not answer, on two real
 * Redis servers as two regions: a settlement never fails, it ends with {@code false},
 * counted {@code failed} and logged as a WARN; a give-back is retried, and applied once
 * however many of its attempts reach Redis, in this region and in the other one.
 */
@ExtendWith(OutputCaptureExtension.class)
class GlobalRateLimitSettleTests {

	private static final RedisKeyspace KEYSPACE = new RedisKeyspace("redkit");

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

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private RegionReplicator euToUs;

	private RateLimiter euLimiter;

	private RateLimiter usLimiter;

	@BeforeEach
	void regions() {
		eu.flushAll();
		us.flushAll();
		this.euLimiter = limiter("eu", euFactory);
		this.usLimiter = limiter("us", usFactory);
		// connected, and the scripts loaded, counted apart: a cold first call may take
		// longer than the 300 ms timeout
		warm(limiter("eu", euFactory, new SimpleMeterRegistry()));
		warm(limiter("us", usFactory, new SimpleMeterRegistry()));
		this.euToUs = RegionReplicator.toPeer(new RegionShipping("eu", 0, new RedisScriptRunner(euFactory), KEYSPACE,
				new RegionRounds(200, Duration.ofMillis(10), Duration.ofMillis(500)),
				new MicrometerRedkitMetrics(SimpleMeterRegistry::new)), "us", new RedisScriptRunner(usFactory));
		this.euToUs.start();
	}

	@AfterEach
	void stopReplicator() {
		this.euToUs.stop();
	}

	@Test
	void aChargeThatFailsReturnsFalseCountsFailedAndLogsAWarn(CapturedOutput output) {
		RateLimitReservation reservation = this.euLimiter.reserve("api", List.of("tenant"), 5);
		assertThat(reservation.allowed()).isTrue();
		// longer than the charge's one attempt (300 ms)
		pause(eu, 1000);
		CompletableFuture<Boolean> settled = reservation.settleAsync(20);
		assertThat(settled).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(false);
		assertThat(settlements("failed")).isOne();
		assertThat(output).contains("WARN").contains("could not charge 15 permit(s)");
	}

	@Test
	void aGiveBackIsRetriedWhileThisRegionIsFrozenAndAppliedOnceInEveryRegion() {
		RateLimitReservation reservation = this.euLimiter.reserve("api", List.of("tenant"), 30);
		assertThat(reservation.allowed()).isTrue();
		// the first attempt times out (300 ms), a later one is answered once it wakes up
		pause(eu, 700);
		assertThat(reservation.settleAsync(5)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		assertThat(settlements("given-back")).isOne();
		assertThat(refunds("given-back")).isOne();
		// every attempt ran when the region woke up: 25 came back once, not once per
		// attempt, here and in the region the give-back was shipped to
		assertThat(remaining(this.euLimiter)).isEqualTo(100 - 5 - 1);
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(20))
			.untilAsserted(() -> assertThat(remaining(this.usLimiter)).isEqualTo(100 - 5 - 1));
	}

	@Test
	void aGiveBackThatNoAttemptConfirmsReturnsFalseCountsFailedAndLogsAWarn(CapturedOutput output) {
		RateLimitReservation reservation = this.euLimiter.reserve("api", List.of("tenant"), 30);
		// longer than every attempt and backoff together (4 x 300 ms + 350 ms)
		pause(eu, 4000);
		assertThat(reservation.settleAsync(5)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(false);
		assertThat(settlements("failed")).isOne();
		assertThat(refunds("failed")).isOne();
		assertThat(output).contains("WARN").contains("could not give back 25 permit(s)");
		// no decision is sent while the region sleeps (it would run late and take a
		// permit): a raw PING waits for it to wake up
		try (RespClient client = eu.client(eu.port())) {
			assertThat(client.callForString("PING")).isEqualTo("PONG");
		}
		// the unanswered attempts ran then, and gave back once
		assertThat(remaining(this.euLimiter)).isEqualTo(100 - 5 - 1);
	}

	/**
	 * A global give-back's marker outlives every attempt and copy of it, as a local one's
	 * does ({@code RefundMarkerTtlTests}): with a command timeout of 2 minutes it is kept
	 * more than three of them.
	 */
	@Test
	void aGiveBacksMarkerOutlivesThreeCommandTimeouts() {
		LettuceConnectionFactory slow = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(RedisServer.HOST, eu.port()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofMinutes(2)).build());
		slow.afterPropertiesSet();
		slow.start();
		try {
			RateLimiter limiter = limiter("eu", slow);
			warm(limiter("eu", slow, new SimpleMeterRegistry()));
			String sequence = new RegionOutbox(KEYSPACE, "eu", 1_000_000).sequence("api");
			StringRedisTemplate template = new RedisScriptRunner(slow).template();
			Set<String> before = ScannedKeys.matching(template, sequence + ":refund:*");
			RateLimitReservation reservation = limiter.reserve("api", List.of("tenant"), 10);
			assertThat(reservation.allowed()).isTrue();
			assertThat(reservation.settleAsync(0)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
			Set<String> markers = ScannedKeys.matching(template, sequence + ":refund:*");
			markers.removeAll(before);
			assertThat(markers).as("the give-back's marker").hasSize(1);
			for (String marker : markers) {
				Long kept = template.getExpire(marker, TimeUnit.MILLISECONDS);
				assertThat(Duration.ofMillis(kept)).as(marker).isGreaterThan(Duration.ofMinutes(6));
			}
		}
		finally {
			slow.destroy();
		}
	}

	private static void warm(RateLimiter limiter) {
		await().atMost(Duration.ofSeconds(30))
			.ignoreExceptions()
			.until(() -> limiter.reserve("api", List.of("warm-up"), 1).giveBackAsync().join());
	}

	private RateLimiter limiter(String region, LettuceConnectionFactory factory) {
		return limiter(region, factory, this.registry);
	}

	private static RateLimiter limiter(String region, LettuceConnectionFactory factory, SimpleMeterRegistry registry) {
		RedisScriptRunner runner = new RedisScriptRunner(factory);
		return new RedisRateLimiter(runner, KEYSPACE, Map.of("api", HUNDRED_AN_HOUR),
				new RateLimitSettings(LimitFailureMode.DENY, Duration.ofMillis(300), Duration.ZERO),
				new MicrometerRedkitMetrics(() -> registry), RedkitObservations.NONE,
				List.of(new GlobalRateLimitDecider(runner, new RegionOutbox(KEYSPACE, region, 1_000_000),
						Set.of("api"))));
	}

	/** What a one-permit look finds left; the look is given back. */
	private static long remaining(RateLimiter limiter) {
		RateLimitReservation look = limiter.reserve("api", List.of("tenant"), 1);
		assertThat(look.giveBackAsync().join()).isTrue();
		return look.decision().remaining();
	}

	private static void pause(RedisServer server, int millis) {
		try (RespClient admin = server.client(server.port())) {
			// every client is paused, this one too: the pause ends by itself
			admin.call("CLIENT", "PAUSE", String.valueOf(millis), "ALL");
		}
	}

	private double settlements(String outcome) {
		Counter counter = this.registry.find("redkit.ratelimit.settlements")
			.tags("limit", "api", "outcome", outcome)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	private double refunds(String outcome) {
		Counter counter = this.registry.find("redkit.ratelimit.refunds")
			.tags("limit", "api", "outcome", outcome)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

}
