package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.internal.RateLimitSettings;
import io.github.redkit.ratelimit.internal.RedisRateLimiter;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.ScannedKeys;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A rate limit's give-back is applied once however late one of its attempts, or a copy
 * Lettuce sends again after a reconnect, reaches Redis: its marker outlives them all. An
 * attempt may wait for a connection up to the command timeout before it is written (a
 * give-back is sent once one frees), and Lettuce sends it again until a command timeout
 * after, a copy reaching Redis within one more: with a command timeout of 2 minutes the
 * marker is kept more than three of them, not the 5 minutes that suffice for Boot's 60 s.
 */
class RefundMarkerTtlTests {

	@Test
	void aGiveBacksMarkerOutlivesThreeCommandTimeouts() {
		RedisServer redis = RedisServers.standalone();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(RedisServer.HOST, redis.port()),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofMinutes(2)).build());
		factory.afterPropertiesSet();
		factory.start();
		try {
			String prefix = "rmt-" + UUID.randomUUID();
			RedisScriptRunner runner = new RedisScriptRunner(factory);
			RedisRateLimiter limiter = new RedisRateLimiter(runner, new RedisKeyspace(prefix),
					Map.of("tokens", RateLimitPolicy.slidingWindow(RateLimitWindow.of(100, Duration.ofHours(1)))),
					new RateLimitSettings(LimitFailureMode.DENY, Duration.ofSeconds(5), Duration.ZERO),
					RedkitMetrics.NONE, RedkitObservations.NONE);
			// connected, and the scripts loaded: a cold first call may take longer than
			// the
			// timeout on a loaded machine
			await().atMost(Duration.ofSeconds(30))
				.ignoreExceptions()
				.until(() -> limiter.tryAcquire("tokens", "warm-up").allowed());
			RateLimitReservation reservation = limiter.reserve("tokens", List.of("acme"), 10);
			assertThat(reservation.allowed()).isTrue();
			assertThat(reservation.settle(0)).isTrue();
			StringRedisTemplate template = runner.template();
			Set<String> markers = ScannedKeys.matching(template, prefix + "*:refund:*");
			assertThat(markers).as("the give-back's marker").hasSize(1);
			Long kept = template.getExpire(markers.iterator().next(), TimeUnit.MILLISECONDS);
			assertThat(Duration.ofMillis(kept)).isGreaterThan(Duration.ofMinutes(6));
		}
		finally {
			factory.destroy();
		}
	}

}
