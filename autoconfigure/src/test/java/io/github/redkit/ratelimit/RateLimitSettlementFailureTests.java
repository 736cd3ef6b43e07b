package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.LocalRateLimiter;
import io.github.redkit.ratelimit.internal.RateLimitInstances;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RespClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the docs promise of a settlement Redis does not confirm, on a real Redis that
 * pauses its clients ({@code CLIENT PAUSE}): it returns {@code false}, counts
 * {@code failed} and logs a WARN, never fails; and a reservation the local failure mode
 * decided is settled in this instance even once Redis answers again.
 */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitSettlementFailureTests {

	private static final RateLimitPolicy HUNDRED_AN_HOUR = RateLimitPolicy
		.slidingWindow(RateLimitWindow.of(100, Duration.ofHours(1)));

	private static final RateLimitPolicy FOUR_AN_HOUR = RateLimitPolicy
		.slidingWindow(RateLimitWindow.of(4, Duration.ofHours(1)));

	@PrivateRedis
	private static RedisServer redis;

	@PrivateRedis
	private static LettuceConnectionFactory factory;

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private RateLimiter limiter;

	@BeforeEach
	void createTheLimiter() {
		this.limiter = new RedisRateLimiter(new RedisScriptRunner(factory), new RedisKeyspace("rl-settle-failure"),
				Map.of("api", HUNDRED_AN_HOUR, "four", FOUR_AN_HOUR),
				new RateLimitSettings(RateLimitFailureMode.LOCAL, Duration.ofMillis(300), Duration.ZERO,
						new LocalRateLimiter(new RateLimitInstances(1), 1000)),
				new MicrometerRedkitMetrics(() -> this.registry), RedkitObservations.NONE);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> !this.limiter.tryAcquire("api", "warm-up-" + UUID.randomUUID()).local());
	}

	@Test
	void aChargeThatFailsReturnsFalseCountsFailedAndLogsAWarn(CapturedOutput output) {
		RateLimitReservation reservation = this.limiter.reserve("api", List.of("charged"), 5);
		assertThat(reservation.decision().local()).isFalse();
		// longer than the charge's one attempt (300 ms)
		pause(1000);
		assertThat(reservation.settleAsync(20)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(false);
		assertThat(settlements("api", "failed")).isOne();
		assertThat(output).contains("WARN").contains("could not charge 15 permit(s)");
	}

	@Test
	void aGiveBackThatNoAttemptConfirmsReturnsFalseCountsFailedAndLogsAWarn(CapturedOutput output) {
		RateLimitReservation reservation = this.limiter.reserve("api", List.of("given-back"), 30);
		assertThat(reservation.decision().local()).isFalse();
		// longer than every attempt and backoff together (4 x 300 ms + 350 ms)
		pause(4000);
		assertThat(reservation.settleAsync(5)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(false);
		assertThat(settlements("api", "failed")).isOne();
		assertThat(output).contains("WARN").contains("could not give back 25 permit(s)");
	}

	@Test
	void aLocalReservationIsSettledLocallyEvenAfterRedisAnswersAgain() {
		String key = "settled-here-" + UUID.randomUUID();
		pause(1000);
		RateLimitReservation reservation = this.limiter.reserve("four", List.of(key), 1);
		assertThat(reservation.decision().local()).isTrue();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> !this.limiter.tryAcquire("api", "back-" + UUID.randomUUID()).local());
		// used 3 of an estimate of 1: the 2 beyond are charged where the call was counted
		assertThat(reservation.settle(3)).isTrue();
		assertThat(settlements("four", "charged")).isOne();
		RateLimitDecision shared = this.limiter.tryAcquire("four", key);
		assertThat(shared.local()).isFalse();
		// the timed-out decision ran on Redis when it woke up: that and this look
		assertThat(shared.remaining()).as("nothing charged on Redis").isEqualTo(2);
		// decided here again: the local count holds the call's 3
		pause(1000);
		RateLimitDecision last = this.limiter.tryAcquire("four", key);
		assertThat(last.local()).isTrue();
		assertThat(last.allowed()).isTrue();
		assertThat(last.remaining()).isZero();
		assertThat(this.limiter.tryAcquire("four", key).allowed()).isFalse();
	}

	private static void pause(int millis) {
		try (RespClient admin = redis.client(redis.port())) {
			// every client is paused, this one too: the pause ends by itself
			admin.call("CLIENT", "PAUSE", String.valueOf(millis), "ALL");
		}
	}

	private double settlements(String limit, String outcome) {
		Counter counter = this.registry.find("redkit.ratelimit.settlements")
			.tags("limit", limit, "outcome", outcome)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

}
