package io.github.redkit.concurrency;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.concurrency.internal.ConcurrencyLimitSettings;
import io.github.redkit.concurrency.internal.RedisConcurrencyLimiter;
import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.github.redkit.testsupport.RespClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;

/**
 * The concurrency limiter and its scripts against a real Redis, standalone and cluster:
 * never more permits than the limit under contention, leases that end when their holder
 * dies and last while it lives, and one round trip each way.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class RedisConcurrencyLimiterTests {

	@Parameter
	RedisTopology topology;

	private RedisServer redis;

	private RedisScriptRunner runner;

	private StringRedisTemplate template;

	private final List<RedisConcurrencyLimiter> limiters = new ArrayList<>();

	private final String id = "conc-" + UUID.randomUUID();

	@BeforeEach
	void createRunner() {
		this.redis = this.topology.server();
		this.runner = new RedisScriptRunner(this.topology.connectionFactory());
		this.template = this.runner.template();
	}

	@AfterEach
	void stopLimiters() {
		this.limiters.forEach(RedisConcurrencyLimiter::destroy);
	}

	private RedisConcurrencyLimiter limiter() {
		if (this.limiters.isEmpty()) {
			// a cold connection and the first script load take longer than the short
			// windows under test
			this.template.hasKey("warm");
		}
		RedisConcurrencyLimiter limiter = new RedisConcurrencyLimiter(this.runner, new RedisKeyspace("conc-test"),
				Map.of("named", new ConcurrencyPolicy(2, Duration.ofSeconds(30))),
				new ConcurrencyLimitSettings(LimitFailureMode.DENY, Duration.ofSeconds(5)), RedkitMetrics.NONE,
				RedkitObservations.NONE);
		this.limiters.add(limiter);
		return limiter;
	}

	@Test
	void thirtyTwoThreadsAgainstALimitOfFourNeverSeeAFifthPermit() throws Exception {
		RedisConcurrencyLimiter limiter = limiter();
		ConcurrencyPolicy policy = new ConcurrencyPolicy(4, Duration.ofSeconds(30));
		String key = limiter.redisKey(this.id, "shared");
		AtomicInteger inFlight = new AtomicInteger();
		AtomicInteger maxInFlight = new AtomicInteger();
		AtomicLong maxInRedis = new AtomicLong();
		AtomicInteger acquired = new AtomicInteger();
		AtomicInteger refused = new AtomicInteger();
		limiter.tryAcquire(this.id, policy, "warm").orElseThrow().close();
		long deadline = System.nanoTime() + Duration.ofMillis(600).toNanos();
		ExecutorService threads = Executors.newFixedThreadPool(32);
		try {
			List<Future<?>> done = new ArrayList<>();
			for (int i = 0; i < 32; i++) {
				done.add(threads.submit(() -> {
					while (System.nanoTime() - deadline < 0) {
						Optional<ConcurrencyPermit> permit = limiter.tryAcquire(this.id, policy, "shared");
						if (permit.isEmpty()) {
							refused.incrementAndGet();
							continue;
						}
						try (ConcurrencyPermit held = permit.get()) {
							acquired.incrementAndGet();
							maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
							// the holder's work: a round trip that reads what Redis holds
							maxInRedis.accumulateAndGet(this.template.opsForZSet().zCard(key), Math::max);
							assertThat(held.inFlight()).isBetween(1L, 4L);
							inFlight.decrementAndGet();
						}
					}
				}));
			}
			for (Future<?> future : done) {
				future.get();
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(maxInFlight).as("permits held at once").hasValue(4);
		assertThat(maxInRedis.get()).as("permits in the sorted set at once").isEqualTo(4);
		assertThat(acquired.get()).isGreaterThan(4);
		assertThat(refused.get()).isPositive();
		assertThat(this.template.opsForZSet().zCard(key)).as("every permit given back").isZero();
	}

	@Test
	void aKilledHoldersPermitComesBackWhenItsLeaseEndsOnRedisClock() {
		ConcurrencyPolicy policy = new ConcurrencyPolicy(1, Duration.ofMillis(300));
		RedisConcurrencyLimiter crashed = limiter();
		ConcurrencyPermit permit = crashed.tryAcquire(this.id, policy, "job").orElseThrow();
		// the process dies: nothing renews or closes its permit
		crashed.destroy();
		String key = crashed.redisKey(this.id, "job");
		Set<TypedTuple<String>> permits = this.template.opsForZSet().rangeWithScores(key, 0, -1);
		assertThat(permits).hasSize(1);
		long leaseEnd = permits.iterator().next().getScore().longValue();
		RedisConcurrencyLimiter survivor = limiter();
		int refusals = 0;
		try (RespClient client = this.redis.client(this.redis.port())) {
			long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
			while (true) {
				assertThat(System.nanoTime() - deadline).as("the lease ended in time").isNegative();
				long before = redisMillis(client);
				Optional<ConcurrencyPermit> next = survivor.tryAcquire(this.id, policy, "job");
				if (next.isEmpty()) {
					assertThat(before).as("refused only before the lease ended").isLessThan(leaseEnd);
					refusals++;
					continue;
				}
				assertThat(redisMillis(client)).as("granted only once the lease ended")
					.isGreaterThanOrEqualTo(leaseEnd);
				next.get().close();
				break;
			}
		}
		assertThat(refusals).as("refused while the lease ran").isPositive();
		// nothing renewed it before its lease ended: its holder knows the place is gone
		assertThat(permit.isHeld()).isFalse();
	}

	@Test
	void anInterruptedHolderStillGivesItsPermitBackAndKeepsItsInterrupt() {
		RedisConcurrencyLimiter limiter = limiter();
		ConcurrencyPolicy policy = new ConcurrencyPolicy(1, Duration.ofSeconds(30));
		ConcurrencyPermit permit = limiter.tryAcquire(this.id, policy, "interrupted").orElseThrow();
		Thread.currentThread().interrupt();
		try {
			permit.close();
		}
		finally {
			assertThat(Thread.interrupted()).as("the interrupt is kept for the caller").isTrue();
		}
		limiter.tryAcquire(this.id, policy, "interrupted").orElseThrow().close();
	}

	@Test
	void aHolderThatRunsLongerThanThreeLeasesKeepsItsPermit() {
		RedisConcurrencyLimiter limiter = limiter();
		// a lease long enough that a renewal every third of it is not missed on a loaded
		// machine
		ConcurrencyPolicy policy = new ConcurrencyPolicy(4, Duration.ofMillis(1000));
		List<ConcurrencyPermit> held = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			held.add(limiter.tryAcquire(this.id, policy, "long").orElseThrow());
		}
		RedisConcurrencyLimiter other = limiter();
		await().during(Duration.ofMillis(3200))
			.atMost(Duration.ofSeconds(6))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> other.tryAcquire(this.id, policy, "long").isEmpty());
		assertThat(held).allMatch(ConcurrencyPermit::isHeld);
		held.forEach(ConcurrencyPermit::close);
		ConcurrencyPermit fifth = other.tryAcquire(this.id, policy, "long").orElseThrow();
		assertThat(fifth.inFlight()).isEqualTo(1);
		assertThat(fifth.remaining()).isEqualTo(3);
		fifth.close();
	}

	@Test
	void aPermitWhosePlaceWasTakenAwayIsLostAndItsCloseGivesNothingBack() {
		RedisConcurrencyLimiter limiter = limiter();
		ConcurrencyPolicy policy = new ConcurrencyPolicy(2, Duration.ofMillis(300));
		ConcurrencyPermit permit = limiter.tryAcquire(this.id, policy, "stolen").orElseThrow();
		this.template.delete(limiter.redisKey(this.id, "stolen"));
		await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(20)).until(() -> !permit.isHeld());
		permit.close();
		assertThat(permit.isHeld()).isFalse();
	}

	@Test
	void takingAPermitIsOneScriptCallAndGivingItBackIsOne() {
		RedisConcurrencyLimiter limiter = limiter();
		// loads the scripts, so that what follows is EVALSHA only
		limiter.tryAcquire("named", "warm-" + this.id).orElseThrow().close();
		CommandStats before = this.redis.commandStats();
		ConcurrencyPermit permit = limiter.tryAcquire("named", this.id).orElseThrow();
		CommandStats taken = this.redis.commandStats().since(before).without(this.redis.backgroundCommands());
		assertThat(taken.calls("evalsha")).isEqualTo(1);
		// INFO commandstats also counts the commands the script itself ran
		assertThat(taken.asMap().keySet()).as(taken.toString())
			.isSubsetOf("evalsha", "time", "zremrangebyscore", "zcard", "zscore", "zrange", "zadd", "pttl", "pexpire",
					"ping");
		CommandStats beforeClose = this.redis.commandStats();
		permit.close();
		permit.close();
		CommandStats given = this.redis.commandStats().since(beforeClose).without(this.redis.backgroundCommands());
		assertThat(given.calls("evalsha")).as("closing twice gives back once").isEqualTo(1);
		// (the counts are the server's: a PING another client sends, a new pooled
		// connection's say, is not this call's)
		assertThat(given.asMap().keySet()).as(given.toString())
			.isSubsetOf("evalsha", "zrem", "ping")
			.contains("evalsha", "zrem");
	}

	@Test
	void aRefusalChangesNothingAndTheSetLivesAsLongAsItsLatestLease() {
		RedisConcurrencyLimiter limiter = limiter();
		ConcurrencyPermit first = limiter.tryAcquire("named", this.id).orElseThrow();
		ConcurrencyPermit second = limiter.tryAcquire("named", this.id).orElseThrow();
		assertThat(second.inFlight()).isEqualTo(2);
		assertThat(second.remaining()).isZero();
		String key = limiter.redisKey("named", this.id);
		Set<TypedTuple<String>> before = this.template.opsForZSet().rangeWithScores(key, 0, -1);
		assertThat(limiter.tryAcquire("named", this.id)).isEmpty();
		assertThat(this.template.opsForZSet().rangeWithScores(key, 0, -1)).isEqualTo(before);
		assertThat(this.template.getExpire(key)).isBetween(1L, 30L);
		assertThat(key).isEqualTo("conc-test:concurrency:named:{" + this.id + "}");
		first.close();
		second.close();
		assertThat(this.template.hasKey(key)).as("the set goes with its last permit").isFalse();
	}

	@Test
	void keysFromRequestsAreEscapedAndUnknownLimitsNamed() {
		RedisConcurrencyLimiter limiter = limiter();
		assertThat(limiter.redisKey("named", "a}b:{c")).isEqualTo("conc-test:concurrency:named:{a%7Db%3A%7Bc}");
		limiter.tryAcquire("named", "a}b:{c").orElseThrow().close();
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("nope", "k"))
			.withMessageContaining("No concurrency limit named 'nope'")
			.withMessageContaining("named");
		assertThatIllegalArgumentException().isThrownBy(() -> limiter.tryAcquire("named", ""))
			.withMessageContaining("a key must not be null or empty");
	}

	@Test
	void theAcquireScriptDropsEndedLeasesOnRedisClock() {
		RedisConcurrencyLimiter limiter = limiter();
		String key = limiter.redisKey("named", this.id);
		// two permits whose leases ended a second ago, as a crashed process leaves them
		try (RespClient client = this.redis.client(this.redis.port())) {
			long past = redisMillis(client) - 1000;
			this.template.opsForZSet().add(key, "dead-1", past);
			this.template.opsForZSet().add(key, "dead-2", past);
		}
		ConcurrencyPermit permit = limiter.tryAcquire("named", this.id).orElseThrow();
		assertThat(permit.inFlight()).isEqualTo(1);
		assertThat(this.template.opsForZSet().range(key, 0, -1)).hasSize(1).doesNotContain("dead-1", "dead-2");
		permit.close();
	}

	private static long redisMillis(RespClient client) {
		List<?> time = (List<?>) client.call("TIME");
		return Long.parseLong(time.get(0).toString()) * 1000 + Long.parseLong(time.get(1).toString()) / 1000;
	}

}
