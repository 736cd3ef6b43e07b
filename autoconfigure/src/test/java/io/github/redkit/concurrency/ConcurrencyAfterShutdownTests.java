package io.github.redkit.concurrency;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redkit.concurrency.internal.ConcurrencyLimitSettings;
import io.github.redkit.concurrency.internal.RedisConcurrencyLimiter;
import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A permit taken while its limiter is being destroyed (a call still in flight when the
 * application stops): its lease can no longer be renewed, so the permit is given back and
 * the caller told, never left taken in Redis until its lease ends. The limiter used to
 * take the place in Redis, then throw when it could not start the renewal.
 */
class ConcurrencyAfterShutdownTests {

	private static final ConcurrencyPolicy ONE = new ConcurrencyPolicy(1, Duration.ofMinutes(5));

	private final String id = "conc-stop-" + UUID.randomUUID();

	@Test
	void aPermitThatCanNoLongerBeRenewedIsGivenBackAndTheCallerTold() {
		RedisScriptRunner runner = new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory());
		runner.connectInBackground().join();
		RedisConcurrencyLimiter stopped = limiter(runner);
		StringRedisTemplate redis = runner.template();
		String key = stopped.redisKey(this.id, "k");
		stopped.destroy();
		assertThatIllegalStateException().isThrownBy(() -> stopped.tryAcquire("one", this.id, ONE, "k"))
			.withMessageContaining("'one'");
		assertThat(redis.opsForZSet().zCard(key)).as("the place is free again").isZero();
	}

	@Test
	void anAsynchronousPermitThatCanNoLongerBeRenewedFailsItsAnswerAndIsGivenBack() throws Exception {
		RedisScriptRunner runner = new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory());
		runner.connectInBackground().join();
		RedisConcurrencyLimiter stopped = limiter(runner);
		StringRedisTemplate redis = runner.template();
		String key = stopped.redisKey(this.id, "k");
		stopped.destroy();
		CompletableFuture<Optional<ConcurrencyPermit>> answer = stopped.tryAcquireAsync("one", this.id, ONE, "k");
		assertThat(answer.handle((permit, ex) -> ex).get(5, TimeUnit.SECONDS))
			.isInstanceOf(IllegalStateException.class);
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(redis.opsForZSet().zCard(key)).as("the place is free again").isZero());
	}

	private static RedisConcurrencyLimiter limiter(RedisScriptRunner runner) {
		return new RedisConcurrencyLimiter(runner, new RedisKeyspace("conc-stop"), Map.of(),
				new ConcurrencyLimitSettings(LimitFailureMode.ALLOW, Duration.ofSeconds(2)), RedkitMetrics.NONE,
				RedkitObservations.NONE);
	}

}
