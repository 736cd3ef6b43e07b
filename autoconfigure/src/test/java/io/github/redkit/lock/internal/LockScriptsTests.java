package io.github.redkit.lock.internal;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.test.RedisTopologies;
import io.github.redkit.test.RedisTopology;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The lock scripts, called directly against a real Redis.
 */
@ParameterizedClass
@RedisTopologies(servers = true)
class LockScriptsTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	@Parameter
	RedisTopology topology;

	private RedisScriptRunner runner;

	private StringRedisTemplate redis;

	private List<String> keys;

	@BeforeEach
	void connect() {
		this.runner = new RedisScriptRunner(this.topology.connectionFactory());
		this.redis = this.runner.template();
		RedisKeyspace.Key lock = new RedisKeyspace("redkit-test").key("lock").tag("scripts-" + UUID.randomUUID());
		this.keys = List.of(lock.build(), lock.part("fence").build(), lock.part("waiters").build());
	}

	private long acquire(String token, long leaseMillis, long waitMillis) {
		return this.runner.execute(LockScripts.ACQUIRE, TIMEOUT, this.keys, token, Long.toString(leaseMillis),
				"3600000", Long.toString(waitMillis));
	}

	private long release(String token) {
		return this.runner.execute(LockScripts.RELEASE, TIMEOUT, List.of(this.keys.get(0), this.keys.get(2)), token);
	}

	private long extend(String token, long leaseMillis) {
		return this.runner.execute(LockScripts.EXTEND, TIMEOUT, this.keys.subList(0, 1), token,
				Long.toString(leaseMillis));
	}

	@Test
	void acquireSetsTheTokenWithTheLeaseAndHandsOutAFencingToken() {
		long fence = acquire("a", 10_000, 0);
		assertThat(fence).isPositive();
		assertThat(this.redis.opsForValue().get(this.keys.get(0))).isEqualTo("a");
		assertThat(this.redis.getExpire(this.keys.get(0))).isBetween(1L, 10L);
		assertThat(this.redis.getExpire(this.keys.get(1))).isPositive();
	}

	@Test
	void anAcquireDeliveredTwiceIsGrantedAgainWithItsFencingTokenAndAnotherStillWaits() {
		// the first reply was lost and the client sent the same call again (a reconnect
		// replays what was not answered): the lock is held by this very acquisition
		long fence = acquire("a", 10_000, 0);
		assertThat(acquire("a", 10_000, 0)).isEqualTo(fence);
		assertThat(acquire("b", 10_000, 0)).isNegative();
		assertThat(acquire("a", 10_000, 0)).as("no new token: nobody else held it").isEqualTo(fence);
	}

	@Test
	void aHeldLockAnswersMinusItsRemainingLeaseAndFlagsWaitersOnlyWhenAsked() {
		acquire("a", 10_000, 0);
		long refused = acquire("b", 10_000, 0);
		assertThat(-refused).isBetween(1L, 10_000L);
		assertThat(this.redis.hasKey(this.keys.get(2))).isFalse();
		acquire("b", 10_000, 5_000);
		assertThat(this.redis.hasKey(this.keys.get(2))).isTrue();
		assertThat(this.redis.getExpire(this.keys.get(2))).isPositive();
		assertThat(this.redis.opsForValue().get(this.keys.get(0))).isEqualTo("a");
	}

	@Test
	void fencingTokensIncreaseEvenWhenTheCounterIsLost() {
		long first = acquire("a", 10_000, 0);
		release("a");
		long second = acquire("b", 10_000, 0);
		assertThat(second).isGreaterThan(first);
		release("b");
		this.redis.delete(this.keys.get(1));
		long third = acquire("c", 10_000, 0);
		assertThat(third).isGreaterThan(second);
		release("c");
		// a promoted replica that missed the last acquisitions has an older counter
		this.redis.opsForValue().set(this.keys.get(1), Long.toString(first));
		assertThat(acquire("d", 10_000, 0)).isGreaterThan(third);
	}

	@Test
	void onlyTheHolderReleasesOrExtends() {
		acquire("a", 10_000, 0);
		assertThat(release("b")).isZero();
		assertThat(extend("b", 60_000)).isZero();
		assertThat(this.redis.opsForValue().get(this.keys.get(0))).isEqualTo("a");
		assertThat(extend("a", 60_000)).isOne();
		assertThat(this.redis.getExpire(this.keys.get(0))).isGreaterThan(10);
		assertThat(release("a")).isOne();
		assertThat(this.redis.hasKey(this.keys.get(0))).isFalse();
		assertThat(release("a")).isZero();
		assertThat(extend("a", 1000)).isZero();
	}

	@Test
	void anAcquireWhileOthersOfItsProcessWaitKeepsTheWaitersFlagSoThatItsReleasePublishes() {
		assertThat(this.runner.execute(LockScripts.ACQUIRE, TIMEOUT, this.keys, "a", "10000", "60000", "5000", "1"))
			.isPositive();
		assertThat(this.redis.getExpire(this.keys.get(2))).isBetween(1L, 10L);
		assertThat(release("a")).isOne();
		assertThat(this.redis.hasKey(this.keys.get(2))).isFalse();
		assertThat(acquire("b", 10_000, 5_000)).isPositive();
		assertThat(this.redis.hasKey(this.keys.get(2))).as("nobody else waits").isFalse();
	}

	@Test
	void releaseClearsTheWaitersFlag() {
		acquire("a", 10_000, 0);
		acquire("b", 10_000, 5_000);
		assertThat(release("a")).isOne();
		assertThat(this.redis.hasKey(this.keys.get(2))).isFalse();
	}

}
