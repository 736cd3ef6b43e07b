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
 * Concurrency permits when Lettuce sends a call again: the connection is cut after Redis
 * applied an acquire or a release and before its answer came back
 * ({@link TcpProxy#cutAfterNextWrite()}), so Lettuce reconnects and sends the same call
 * again (issue 43). Both are idempotent by construction: the permit's id is chosen per
 * call, so an acquire delivered twice adds the same member (one place) and a release
 * delivered twice removes nothing more. The copy of an acquire that took the last place
 * must recognise the caller's own permit, not count it against the limit and refuse,
 * leaving it held for its whole lease.
 */
class ConcurrencyReplayTests {

	// long enough for a cold first call on a loaded machine
	private static final Duration TIMEOUT = Duration.ofSeconds(15);

	private final TcpProxy link = TcpProxy.start(RedisServers.standalone().port());

	private final LettuceConnectionFactory factory = this.link.connectionFactory(TIMEOUT);

	private final RedisKeyspace keyspace = new RedisKeyspace("ccrp-" + UUID.randomUUID());

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
	void anAcquireAndAReleaseDeliveredTwiceTakeAndGiveBackOnePlace() {
		warmUp("two");
		this.link.cutAfterNextWrite();
		Optional<ConcurrencyPermit> permit = this.limiter.tryAcquire("two", "shared");
		assertThat(this.link.cutsAfterWrite()).isEqualTo(1);
		assertThat(permit).isPresent();
		String key = this.limiter.redisKey("two", "shared");
		assertThat(this.redis.opsForZSet().zCard(key)).as("one place taken").isOne();
		ConcurrencyPermit other = this.direct.tryAcquire("two", "shared").orElseThrow();
		assertThat(this.direct.tryAcquire("two", "shared")).as("two places, no third").isEmpty();
		this.link.cutAfterNextWrite();
		permit.get().close();
		assertThat(this.link.cutsAfterWrite()).isEqualTo(2);
		assertThat(this.redis.opsForZSet().zCard(key)).as("only its own place given back").isOne();
		other.close();
		assertThat(this.redis.opsForZSet().zCard(key)).isZero();
	}

	@Test
	void anAcquireSentAgainAtTheLimitIsGrantedAndHoldsOnePlace() {
		warmUp("one");
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

	/**
	 * Connects, and loads the scripts, before a cut; a close gives back in the
	 * background: the cut must not catch that release.
	 */
	private void warmUp(String limit) {
		this.limiter.tryAcquire(limit, "warm-up").orElseThrow().close();
		String warmUp = this.limiter.redisKey(limit, "warm-up");
		await().atMost(TIMEOUT).until(() -> this.redis.opsForZSet().zCard(warmUp) == 0);
	}

	private RedisConcurrencyLimiter limiter(RedisScriptRunner runner) {
		return new RedisConcurrencyLimiter(runner, this.keyspace,
				Map.of("one", new ConcurrencyPolicy(1, Duration.ofSeconds(30)), "two",
						new ConcurrencyPolicy(2, Duration.ofSeconds(30))),
				new ConcurrencyLimitSettings(LimitFailureMode.DENY, TIMEOUT), RedkitMetrics.NONE,
				RedkitObservations.NONE);
	}

}
