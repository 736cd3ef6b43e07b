package io.github.redkit.concurrency;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import io.github.redkit.concurrency.internal.ConcurrencyLimitSettings;
import io.github.redkit.concurrency.internal.RedisConcurrencyLimiter;
import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.RedisServers;
import io.github.redkit.testsupport.RedisTopology;
import io.github.redkit.testsupport.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A concurrency acquire that takes the last place and that Lettuce sends again (its
 * answer lost with the connection, issue 43): the copy must recognise the caller's own
 * permit, not count it against the limit and refuse, leaving it held for its whole lease.
 */
class ConcurrencyAtTheLimitReplayTests {

	// long enough for a cold first call on a loaded machine
	private static final Duration TIMEOUT = Duration.ofSeconds(15);

	private final TcpProxy link = TcpProxy.start(RedisServers.standalone().port());

	private final LettuceConnectionFactory factory = this.link.connectionFactory(TIMEOUT);

	private final RedisKeyspace keyspace = new RedisKeyspace("ccl-" + UUID.randomUUID());

	private final RedisConcurrencyLimiter limiter = limiter(new RedisScriptRunner(this.factory));

	private final RedisConcurrencyLimiter direct = limiter(
			new RedisScriptRunner(RedisTopology.STANDALONE.connectionFactory()));

	private final StringRedisTemplate redis = new StringRedisTemplate(RedisTopology.STANDALONE.connectionFactory());

	@AfterEach
	void close() {
		this.limiter.destroy();
		this.direct.destroy();
		this.factory.destroy();
		this.link.close();
	}

	@Test
	void anAcquireSentAgainAtTheLimitIsGrantedAndHoldsOnePlace() {
		// connected, and the scripts loaded, before the cut; a close gives back in the
		// background: the cut must not catch that release
		this.limiter.tryAcquire("one", "warm-up").orElseThrow().close();
		String warmUp = this.limiter.redisKey("one", "warm-up");
		await().atMost(TIMEOUT).until(() -> this.redis.opsForZSet().zCard(warmUp) == 0);
		this.link.cutAfterNextWrite();
		Optional<ConcurrencyPermit> permit = this.limiter.tryAcquire("one", "shared");
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(permit).as("the last place, taken by this very call").isPresent();
		String key = this.limiter.redisKey("one", "shared");
		assertThat(this.redis.opsForZSet().zCard(key)).as("one place taken").isOne();
		assertThat(this.direct.tryAcquire("one", "shared")).as("no second place").isEmpty();
		permit.get().close();
		await().atMost(TIMEOUT).until(() -> this.redis.opsForZSet().zCard(key) == 0);
		ConcurrencyPermit next = this.direct.tryAcquire("one", "shared").orElseThrow();
		next.close();
	}

	private RedisConcurrencyLimiter limiter(RedisScriptRunner runner) {
		return new RedisConcurrencyLimiter(runner, this.keyspace,
				Map.of("one", new ConcurrencyPolicy(1, Duration.ofSeconds(30))),
				new ConcurrencyLimitSettings(LimitFailureMode.DENY, TIMEOUT), RedkitMetrics.NONE,
				RedkitObservations.NONE);
	}

}
