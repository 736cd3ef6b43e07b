package io.github.redkit.lock.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.LockRecords;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The lock scripts, called directly against a real Redis.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class LockScriptsTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private static final String OUTLIVES = Long.toString(LockScripts.FENCE_TTL.toMillis());

	@Parameter
	RedisTopology topology;

	private RedisScriptRunner runner;

	private StringRedisTemplate redis;

	private List<String> keys;

	private String lock;

	@BeforeEach
	void connect() {
		this.runner = new RedisScriptRunner(this.topology.connectionFactory());
		this.redis = this.runner.template();
		this.lock = new RedisKeyspace("redkit-test").key("lock").tag("scripts-" + UUID.randomUUID()).build();
		this.keys = LockScripts.keysOf(this.lock);
	}

	private long acquire(String token, long leaseMillis, long waitMillis) {
		return this.runner.execute(LockScripts.ACQUIRE, TIMEOUT, this.keys, token, Long.toString(leaseMillis),
				recordTtl(leaseMillis), Long.toString(waitMillis));
	}

	private long acquire(String token, long leaseMillis, long recordTtlMillis, long waitMillis) {
		return this.runner.execute(LockScripts.ACQUIRE, TIMEOUT, this.keys, token, Long.toString(leaseMillis),
				Long.toString(recordTtlMillis), Long.toString(waitMillis));
	}

	private long release(String token, long fence) {
		return this.runner.execute(LockScripts.RELEASE, TIMEOUT, this.keys, token, Long.toString(fence), OUTLIVES);
	}

	private long forceRelease() {
		return this.runner.execute(LockScripts.RELEASE, TIMEOUT, this.keys, "", "0", OUTLIVES, "force");
	}

	private long extend(String token, long fence, long leaseMillis) {
		return this.runner.execute(LockScripts.EXTEND, TIMEOUT, this.keys, token, Long.toString(leaseMillis),
				Long.toString(fence), OUTLIVES);
	}

	private static String recordTtl(long leaseMillis) {
		return Long.toString(leaseMillis + LockScripts.FENCE_TTL.toMillis());
	}

	private String[] record() {
		return LockRecords.fields(this.redis, this.lock);
	}

	private byte[] raw() {
		return LockRecords.raw(this.redis, this.lock);
	}

	private long redisMicros() {
		return this.redis
			.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time(TimeUnit.MICROSECONDS));
	}

	@Test
	void acquireWritesOneRecordThatOutlivesTheLeaseAndHandsOutAFencingToken() {
		long fence = acquire("a", 10_000, 0);
		assertThat(fence).isPositive();
		assertThat(record()).containsExactly(Long.toString(fence), "a", record()[2], "");
		assertThat(LockRecords.remainingLeaseMillis(this.redis, this.lock)).isBetween(1L, 10_000L);
		// the key keeps the last fencing token an hour past the lease
		assertThat(this.redis.getExpire(this.lock)).isBetween(3600L, 3610L);
	}

	@Test
	void anAcquireDeliveredTwiceIsGrantedAgainWithItsFencingTokenAndAnotherStillWaits() {
		// the first reply was lost and the client sent the same call again (a reconnect
		// replays what was not answered): the lock is held by this very acquisition
		long fence = acquire("a", 10_000, 0);
		byte[] first = raw();
		assertThat(acquire("a", 10_000, 0)).isEqualTo(fence);
		assertThat(raw()).as("the lease the first delivery set").isEqualTo(first);
		assertThat(acquire("b", 10_000, 0)).isNegative();
		assertThat(acquire("a", 10_000, 0)).as("no new token: nobody else held it").isEqualTo(fence);
	}

	@Test
	void aHeldLockAnswersMinusItsRemainingLeaseAndFlagsWaitersOnlyWhenAsked() {
		long fence = acquire("a", 10_000, 0);
		byte[] held = raw();
		long refused = acquire("b", 10_000, 0);
		assertThat(-refused).isBetween(1L, 10_000L);
		assertThat(raw()).as("put back as it was").isEqualTo(held);
		assertThat(this.redis.getExpire(this.lock)).isGreaterThan(3600L);
		acquire("b", 10_000, 5_000);
		assertThat(record()).containsExactly(Long.toString(fence), "a", record()[2], "1");
		assertThat(LockRecords.waitedFor(this.redis, this.lock)).isTrue();
	}

	@Test
	void fencingTokensIncreaseAcrossReleasesLeasesRecordsLostAndClocksBehind() {
		long first = acquire("a", 10_000, 0);
		assertThat(release("a", first)).isOne();
		long second = acquire("b", 10_000, 0);
		assertThat(second).isGreaterThan(first);
		assertThat(release("b", second)).isOne();
		// free (its lease end 0), naming its last holder: a copy of the release sent
		// again
		// answers released
		assertThat(record()).as("the freed record keeps the token")
			.containsExactly(Long.toString(second), "b", "0", "");
		// the record expired (or a promoted replica never had it): Redis time
		this.redis.delete(this.lock);
		long third = acquire("c", 10_000, 0);
		assertThat(third).isGreaterThan(second);
		release("c", third);
		// a clock stepped back while the record lives: one more than the last token
		long ahead = redisMicros() + 60_000_000;
		LockRecords.write(this.redis, this.lock, ahead, "", 0, false);
		assertThat(acquire("d", 10_000, 0)).isEqualTo(ahead + 1);
		// a lease that ran out keeps its token too
		LockRecords.write(this.redis, this.lock, ahead + 5, "e", redisMicros() - 1, false);
		assertThat(acquire("f", 10_000, 0)).isEqualTo(ahead + 6);
	}

	@Test
	void theReleasesNativeFormNamesTheRecordAnAcquisitionOrAnExtensionWrote() {
		byte[] holder = "a".getBytes(StandardCharsets.US_ASCII);
		long fence = acquire("a", 60_000, 0);
		assertThat(raw()).isEqualTo(ReleaseIfUnchanged.record(fence, LockScripts.leaseEnd(fence, 60_000), holder));
		long extendedAt = extend("a", fence, 90_000);
		assertThat(raw()).isEqualTo(ReleaseIfUnchanged.record(fence, LockScripts.leaseEnd(extendedAt, 90_000), holder));
		// a lease of a thousand years ends past 2^53 µs, where the double rounds: the
		// same way in Java
		long millennium = Duration.ofDays(365_250).toMillis();
		extendedAt = extend("a", fence, millennium);
		assertThat(raw())
			.isEqualTo(ReleaseIfUnchanged.record(fence, LockScripts.leaseEnd(extendedAt, millennium), holder));
		release("a", fence);
		assertThat(raw()).as("freed").isEqualTo(ReleaseIfUnchanged.record(fence, 0, holder));
	}

	@Test
	void onlyTheHolderReleasesOrExtends() {
		long fence = acquire("a", 10_000, 0);
		byte[] held = raw();
		assertThat(release("b", 7)).isZero();
		assertThat(extend("b", 7, 60_000)).isZero();
		assertThat(raw()).as("put back as it was").isEqualTo(held);
		assertThat(this.redis.getExpire(this.lock)).isGreaterThan(3600L);
		assertThat(extend("a", fence, 60_000)).isPositive();
		assertThat(LockRecords.remainingLeaseMillis(this.redis, this.lock)).isGreaterThan(50_000L);
		assertThat(this.redis.getExpire(this.lock)).isGreaterThan(3650L);
		assertThat(release("a", fence)).isOne();
		assertThat(LockRecords.held(this.redis, this.lock)).isFalse();
		assertThat(release("a", fence)).as("a copy of the release: released, as the first answered").isOne();
		assertThat(release("b", fence)).isZero();
		assertThat(extend("a", fence, 1000)).isZero();
		assertThat(LockRecords.held(this.redis, this.lock)).as("a refused extension takes nothing").isFalse();
		assertThat(record()[0]).isEqualTo(Long.toString(fence));
	}

	@Test
	void aHolderWhoseLeaseRanOutNeitherExtendsNorFreesTheNextHolder() {
		long fence = acquire("a", 50, 0);
		await().atMost(Duration.ofSeconds(5)).until(() -> !LockRecords.held(this.redis, this.lock));
		assertThat(extend("a", fence, 10_000)).isZero();
		assertThat(LockRecords.held(this.redis, this.lock)).isFalse();
		long next = acquire("b", 10_000, 0);
		assertThat(next).isGreaterThan(fence);
		assertThat(release("a", fence)).isZero();
		assertThat(extend("a", fence, 10_000)).isZero();
		assertThat(record()).containsExactly(Long.toString(next), "b", record()[2], "");
		// the record expired entirely: an extension leaves a free record, not a held one
		this.redis.delete(this.lock);
		assertThat(extend("b", next, 10_000)).isZero();
		assertThat(LockRecords.held(this.redis, this.lock)).isFalse();
	}

	@Test
	void anExtensionKeepsTheWaitersFlag() {
		long fence = acquire("a", 10_000, 0);
		acquire("b", 10_000, 5_000);
		assertThat(extend("a", fence, 20_000)).isPositive();
		assertThat(LockRecords.waitedFor(this.redis, this.lock)).isTrue();
		assertThat(LockRecords.remainingLeaseMillis(this.redis, this.lock)).isGreaterThan(15_000L);
	}

	@Test
	void anAcquireWhileOthersOfItsProcessWaitKeepsTheWaitersFlagSoThatItsReleasePublishes() {
		long fence = this.runner.execute(LockScripts.ACQUIRE, TIMEOUT, this.keys, "a", "10000", recordTtl(10_000),
				"5000", "1");
		assertThat(fence).isPositive();
		assertThat(LockRecords.waitedFor(this.redis, this.lock)).isTrue();
		assertThat(release("a", fence)).isOne();
		assertThat(LockRecords.waitedFor(this.redis, this.lock)).isFalse();
		assertThat(acquire("b", 10_000, 5_000)).isPositive();
		assertThat(LockRecords.waitedFor(this.redis, this.lock)).as("nobody else waits").isFalse();
	}

	@Test
	void releaseClearsTheWaitersFlag() {
		long fence = acquire("a", 10_000, 0);
		acquire("b", 10_000, 5_000);
		assertThat(release("a", fence)).isOne();
		assertThat(LockRecords.waitedFor(this.redis, this.lock)).isFalse();
	}

	@Test
	void aReleaseThatDoesNotKnowItsFencingTokenKeepsTheRecordsOwn() {
		long fence = acquire("a", 10_000, 0);
		assertThat(release("a", 0)).isOne();
		assertThat(record()).containsExactly(Long.toString(fence), "a", "0", "");
	}

	@Test
	void aReleaseSentAgainAnswersWhatTheFirstAnswered() {
		long fence = acquire("a", 10_000, 0);
		assertThat(release("a", fence)).isOne();
		assertThat(release("a", fence)).as("the copy").isOne();
		assertThat(LockRecords.held(this.redis, this.lock)).isFalse();
		assertThat(extend("a", fence, 10_000)).as("a released lock is not extended").isZero();
		assertThat(acquire("b", 10_000, 0)).isGreaterThan(fence);
		// nothing there (the record expired): not released, by the copy either
		this.redis.delete(this.lock);
		assertThat(release("b", 0)).isZero();
		assertThat(release("b", 0)).as("the copy").isZero();
		assertThat(LockRecords.held(this.redis, this.lock)).isFalse();
	}

	@Test
	void aForcedReleaseFreesWhoeverHoldsAndKeepsTheFencingToken() {
		assertThat(forceRelease()).as("nothing there").isZero();
		long fence = acquire("a", 10_000, 0);
		assertThat(forceRelease()).isOne();
		assertThat(record()).containsExactly(Long.toString(fence), "", "0", "");
		assertThat(forceRelease()).as("already free").isZero();
		assertThat(acquire("b", 10_000, 0)).isGreaterThan(fence);
	}

	@Test
	void aLockOfThePreviousLayoutStaysWithItsHolder() {
		// a plain token with the lease as TTL: an instance not upgraded yet holds it
		this.redis.opsForValue().set(this.lock, "old-holder", Duration.ofSeconds(30));
		assertThat(acquire("a", 10_000, 5_000)).isNegative();
		assertThat(this.redis.opsForValue().get(this.lock)).isEqualTo("old-holder");
		assertThat(this.redis.getExpire(this.lock)).isGreaterThanOrEqualTo(30L);
		assertThat(release("a", 1)).isZero();
		assertThat(extend("a", 1, 10_000)).isZero();
		assertThat(this.redis.opsForValue().get(this.lock)).isEqualTo("old-holder");
		assertThat(this.redis.getExpire(this.lock)).isGreaterThanOrEqualTo(30L);
		assertThat(forceRelease()).isOne();
		assertThat(acquire("a", 10_000, 0)).isPositive();
	}

	@Test
	void aCrashedHolderOfThePreviousLayoutIsWaitedForNoLongerThanFromTheFirstSighting() {
		// an instance not upgraded yet took the lock (a plain token, its lease as TTL)
		// and crashed: nobody extends or releases it
		this.redis.opsForValue().set(this.lock, "old-holder", Duration.ofSeconds(30));
		long before = redisMicros();
		// short leases: the record lives 300 ms, 100 ms past a 200 ms lease
		assertThat(acquire("a", 200, 300, 5_000)).as("the first sighting").isNegative();
		// an upgraded waiter keeps trying: each attempt meets the old token again
		long acquired = await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> acquire("a", 200, 300, 5_000), (result) -> result > 0);
		// a fencing token handed out on a missing key is the Redis time it was taken at
		long waitedMillis = (acquired - before) / 1000;
		assertThat(waitedMillis).as("never before the bound").isGreaterThanOrEqualTo(300);
		assertThat(waitedMillis).as("no later than the bound (and a loaded machine)").isLessThan(1_300);
	}

	@Test
	void anUpgradedReleaseExtensionOrAttemptNeverMovesTheEndOfAPreviousLayoutLock() {
		this.redis.opsForValue().set(this.lock, "old-holder", Duration.ofSeconds(30));
		assertThat(acquire("a", 10_000, 5_000)).isNegative();
		long end = pttl() + System.currentTimeMillis();
		assertThat(release("a", 1)).isZero();
		assertThat(extend("a", 1, 60_000)).isZero();
		assertThat(acquire("b", 60_000, 5_000)).isNegative();
		assertThat(this.redis.opsForValue().get(this.lock)).isEqualTo("old-holder");
		assertThat(pttl() + System.currentTimeMillis()).as("the end the first sighting set (and the clocks' rounding)")
			.isLessThanOrEqualTo(end + 100);
	}

	@Test
	void anotherHolderOfThePreviousLayoutGetsItsOwnBound() {
		this.redis.opsForValue().set(this.lock, "old-holder", Duration.ofSeconds(30));
		assertThat(acquire("a", 200, 300, 5_000)).isNegative();
		// its holder releases (the previous release deleted the key) and another
		// instance not upgraded yet takes it: its lease is its own, not the first one's
		this.redis.delete(this.lock);
		this.redis.opsForValue().set(this.lock, "another-old-holder", Duration.ofSeconds(30));
		assertThat(acquire("a", 10_000, 5_000)).isNegative();
		assertThat(pttl()).isGreaterThan(3_600_000L);
	}

	private long pttl() {
		return this.redis.getExpire(this.lock, TimeUnit.MILLISECONDS);
	}

	@Test
	void anInstanceOfThePreviousLayoutStallsButNeverTakesALockWhoseRecordLives() {
		long fence = acquire("a", 10_000, 0);
		// the previous acquire script began with SET NX PX
		assertThat(this.redis.opsForValue().setIfAbsent(this.lock, "old-holder", Duration.ofSeconds(30))).isFalse();
		release("a", fence);
		assertThat(this.redis.opsForValue().setIfAbsent(this.lock, "old-holder", Duration.ofSeconds(30)))
			.as("released, the record still lives")
			.isFalse();
	}

	@Test
	void aLockNameWithTheSeparatorCannotBreakTheRecord() {
		// the name is only in the key: the record holds numbers and the holder's token
		this.lock = new RedisKeyspace("redkit-test").key("lock").tag("a|b|1|1-" + UUID.randomUUID()).build();
		this.keys = LockScripts.keysOf(this.lock);
		long fence = acquire(LockScripts.newToken(), 10_000, 0);
		assertThat(record()).hasSize(4);
		assertThat(record()[0]).isEqualTo(Long.toString(fence));
		// printable: no zero byte (it ends the record's token) and never the record's
		// version
		// byte, so a plain token of the previous layout is told from a record
		assertThat(LockScripts.newToken()).matches("[\\x21-\\x7e]+");
	}

}
