package io.github.redkit.queue.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The queue scripts called directly, on raw keys.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class QueueScriptsTests {

	/** The replay window, ms: how long a call's record is kept. */
	private static final String WINDOW = "120000";

	private static final LuaScript<List> CLAIM = LuaScript.load("queue_claim", List.class);

	private static final LuaScript<Long> FAIL = LuaScript.load("queue_fail", Long.class);

	private static final LuaScript<Long> DELAY = LuaScript.load("queue_delay", Long.class);

	private static final LuaScript<Long> RELEASE = LuaScript.load("queue_release", Long.class);

	private static final LuaScript<Long> REQUEUE = LuaScript.load("queue_requeue", Long.class);

	private static final LuaScript<Long> SEND = LuaScript.load("queue_send", Long.class);

	private static final LuaScript<Long> ACK = LuaScript.load("queue_ack", Long.class);

	private static final LuaScript<Long> EXTEND = LuaScript.load("queue_extend", Long.class);

	@Parameter
	RedisTopology topology;

	private RedisScriptRunner runner;

	private StringRedisTemplate redis;

	private QueueKeys keys;

	@BeforeEach
	void setUp() {
		this.runner = new RedisScriptRunner(this.topology.connectionFactory());
		this.redis = this.runner.template();
		this.keys = QueueKeys.of(QueueTestSupport.KEYSPACE, "scripts-" + UUID.randomUUID());
	}

	@Test
	void claimTracksTheMessageInFlightUnderItsTakeWithARedisDeadlineAndCountsTheDelivery() {
		this.redis.opsForList().rightPushAll(this.keys.ready(), "a|0|{}", "b|4|{}");
		List<?> first = claim("0", 60_000, "t1");
		assertThat(first.get(0)).isEqualTo("a|1|{}");
		long now = number(first.get(1));
		assertThat(this.redis.opsForZSet().score(this.keys.inFlight(), "t1#a|1|{}")).isEqualTo(now + 60_000.0);
		assertThat(claim("0", 60_000, "t2").get(0)).isEqualTo("b|5|{}");
		assertThat(this.redis.opsForZSet().range(this.keys.inFlight(), 0, -1)).containsExactlyInAnyOrder("t1#a|1|{}",
				"t2#b|5|{}");
		List<?> empty = claim("0", 60_000, "t3");
		assertThat(empty.get(0)).as("nothing claimed").isEqualTo(0L);
		assertThat(number(empty.get(1))).as("wait hint = next in-flight deadline").isBetween(59_000L, 60_000L);
	}

	@Test
	void aTakeSentAgainAnswersItsBatchAndTakesAndAcknowledgesNothingMore() {
		this.redis.opsForList().rightPushAll(this.keys.ready(), "a|0|{}", "b|0|{}", "c|0|{}", "d|0|{}");
		claim("0", 60_000, "t0");
		List<?> first = this.runner.execute(CLAIM, this.keys.claimKeys("t1"), "0", "60000", "100", "2", "t1", WINDOW,
				"t0#a|1|{}");
		List<?> again = this.runner.execute(CLAIM, this.keys.claimKeys("t1"), "0", "60000", "100", "2", "t1", WINDOW,
				"t0#a|1|{}");
		assertThat(first.get(0)).isEqualTo("b|1|{}");
		assertThat(first.get(2)).isEqualTo(1L);
		assertThat(again.get(0)).isEqualTo(first.get(0));
		assertThat(again.subList(2, again.size() - 1)).as("the first answer's acks, and its batch")
			.isEqualTo(first.subList(2, first.size()));
		assertThat(number(again.get(again.size() - 1))).as("how long ago the first take took them")
			.isEqualTo(number(again.get(1)) - number(first.get(1)));
		assertThat(this.redis.opsForList().range(this.keys.ready(), 0, -1)).containsExactly("d|0|{}");
		assertThat(this.redis.opsForZSet().range(this.keys.inFlight(), 0, -1)).containsExactly("t1#b|1|{}",
				"t1#c|1|{}");
		assertThat(this.redis.getExpire(this.keys.once("t1"), TimeUnit.MILLISECONDS)).isPositive()
			.isLessThanOrEqualTo(Long.parseLong(WINDOW));
		assertThat(this.redis.hasKey(this.keys.once("t0"))).as("a take that acknowledged nothing and took one")
			.isTrue();
	}

	@Test
	void aTakeSentAgainAfterItsVisibilityRanOutAnswersNothingAndItsMessageGoesBack() {
		this.redis.opsForList().rightPush(this.keys.ready(), "a|0|{}");
		List<?> first = claim("0", 1, "t1");
		long deadline = number(first.get(1)) + 1;
		await().atMost(Duration.ofSeconds(5)).until(() -> redisNow() > deadline);
		List<?> again = claim("0", 1, "t1");
		assertThat(again).as("nothing, take again at once").isEqualTo(List.of(0L, 0L, 0L));
		assertThat(claim("0", 60_000, "t2").get(0)).as("the next take reaps it").isEqualTo("a|2|{}");
	}

	@Test
	void anIdleTakeWritesNoRecord() {
		assertThat(claim("0", 60_000, "t1").get(0)).isEqualTo(0L);
		assertThat(this.redis.hasKey(this.keys.once("t1"))).isFalse();
	}

	@Test
	void claimAcknowledgesTheTakesItIsGivenFirstAndCountsThoseStillInFlight() {
		this.redis.opsForList().rightPushAll(this.keys.ready(), "a|0|{}", "b|0|{}");
		claim("0", 60_000, "t1");
		List<?> reply = this.runner.execute(CLAIM, this.keys.claimKeys("t2"), "0", "60000", "100", "1", "t2", WINDOW,
				"t1#a|1|{}", "t9#a|1|{}");
		assertThat(reply.get(0)).isEqualTo("b|1|{}");
		assertThat(reply.get(2)).as("acknowledged: only the take that holds it").isEqualTo(1L);
		assertThat(this.redis.opsForZSet().range(this.keys.inFlight(), 0, -1)).containsExactly("t2#b|1|{}");
	}

	@Test
	void anExpiredTakeGoesBackToTheQueueWithoutItsToken() {
		this.redis.opsForZSet().add(this.keys.inFlight(), "t1#a;h=%23|1|{\"x\":\"#\"}", 1);
		assertThat(claim("0", 60_000, "t2").get(0)).isEqualTo("a;h=%23|2|{\"x\":\"#\"}");
		assertThat(this.redis.opsForZSet().range(this.keys.inFlight(), 0, -1))
			.containsExactly("t2#a;h=%23|2|{\"x\":\"#\"}");
	}

	@Test
	void sendAppendsEveryElementInOrderAndAnswersTheLength() {
		this.redis.opsForList().rightPush(this.keys.ready(), "a|0|{}");
		assertThat(this.runner.execute(SEND, this.keys.sendKeys("b"), WINDOW, "b|0|{}", "c;k=v|0|{\"n\":1}"))
			.isEqualTo(3);
		assertThat(this.redis.opsForList().range(this.keys.ready(), 0, -1)).containsExactly("a|0|{}", "b|0|{}",
				"c;k=v|0|{\"n\":1}");
	}

	@Test
	void ackRemovesTheTakeItNamesAndNoOtherTakeOfTheSameElement() {
		this.redis.opsForList().rightPush(this.keys.ready(), "a|0|{}");
		claim("0", 60_000, "t1");
		assertThat(ack("t0#a|1|{}")).as("another take of the same element").isZero();
		assertThat(this.redis.opsForZSet().zCard(this.keys.inFlight())).isOne();
		assertThat(ack("t1#a|1|{}")).isOne();
		assertThat(ack("t1#a|1|{}")).isZero();
		assertThat(this.redis.hasKey(this.keys.inFlight())).isFalse();
	}

	@Test
	void extendMovesTheDeadlineOfTheTakeItNamesOnly() {
		this.redis.opsForList().rightPush(this.keys.ready(), "a|0|{}");
		long now = number(claim("0", 1000, "t1").get(1));
		assertThat(this.runner.execute(EXTEND, this.keys.extendKeys(), "t1#a|1|{}", "60000")).isOne();
		assertThat(this.redis.opsForZSet().score(this.keys.inFlight(), "t1#a|1|{}")).isBetween(now + 60_000.0,
				now + 61_000.0);
		assertThat(this.runner.execute(EXTEND, this.keys.extendKeys(), "t2#a|1|{}", "60000")).isZero();
		assertThat(this.redis.opsForZSet().range(this.keys.inFlight(), 0, -1)).containsExactly("t1#a|1|{}");
	}

	@Test
	void claimReapsAtMostOneBatchOfExpiredMessages() {
		for (int i = 0; i < 150; i++) {
			this.redis.opsForZSet().add(this.keys.inFlight(), "m" + i + "|1|{}", 1);
		}
		assertThat(claim("1", 1000, "t").get(0)).isInstanceOf(String.class);
		assertThat(this.redis.opsForZSet().zCard(this.keys.inFlight())).isEqualTo(50 + 1);
		assertThat(this.redis.opsForList().size(this.keys.ready())).isEqualTo(99);
	}

	@Test
	void claimWithNothingPendingAsksForAnUnboundedWait() {
		assertThat(claim("0", 1000, "t")).isEqualTo(List.of(0L, -1L, 0L));
	}

	@Test
	void delayCollapsesOnThePayloadNotTheId() {
		assertThat(delay("a|0|{\"x\":1}", 60_000, "first-wins")).isEqualTo(1);
		assertThat(delay("b|0|{\"x\":1}", 60_000, "first-wins")).isZero();
		assertThat(delay("c|0|{\"x\":1}", 10, "last-wins")).isZero();
		assertThat(this.redis.opsForZSet().range(this.keys.delayed(), 0, -1)).containsExactly("c|0|{\"x\":1}");
		assertThat(delay("d|0|{\"x\":2}", 0, "none")).isEqualTo(1);
	}

	@Test
	void failOnlySettlesAMessageTheCallerStillOwns() {
		assertThat(fail("a|1|{}", "retry")).isZero();
		this.redis.opsForZSet().add(this.keys.inFlight(), "t0#a|1|{}", Double.MAX_VALUE);
		assertThat(fail("a|1|{}", "retry")).as("another take").isZero();
		this.redis.opsForZSet().add(this.keys.inFlight(), "t1#a|1|{}", Double.MAX_VALUE);
		assertThat(fail("a|1|{}", "dead")).isEqualTo(2);
		assertThat(this.redis.opsForHash().get(this.keys.dead(), "a")).isEqualTo("a|1|{}");
		assertThat(this.redis.opsForHash().get(this.keys.deadErrors(), "a")).isEqualTo("boom");
		assertThat(this.redis.getExpire(this.keys.dead())).isPositive();
		assertThat(this.runner.execute(REQUEUE, this.keys.deadKeys(UUID.randomUUID().toString()), "a", "1", WINDOW))
			.isEqualTo(1);
		assertThat(this.redis.opsForList().range(this.keys.ready(), 0, -1)).containsExactly("a|0|{}");
	}

	@Test
	void anElementThatIsNotAMessageIsHandedOutAsItIsAndReapedWithoutStoppingTheQueue() {
		this.redis.opsForList().rightPushAll(this.keys.ready(), "garbage", "a|x|{}", "b|0|{}");
		List<?> taken = this.runner.execute(CLAIM, this.keys.claimKeys("t1"), "0", "60000", "100", "10", "t1", WINDOW);
		assertThat(List.of(taken.get(0), taken.get(3), taken.get(4))).containsExactly("garbage", "a|x|{}", "b|1|{}");
		// its taker died before settling it: it expires, and is reaped like any other
		this.redis.opsForZSet().add(this.keys.inFlight(), "t0#junk", 0);
		this.redis.delete(this.keys.nextDue());
		assertThat(claim("0", 60000, "t2").get(0)).isEqualTo("junk");
		this.redis.opsForHash().put(this.keys.dead(), "j", "junk");
		this.redis.opsForZSet().add(this.keys.deadIndex(), "j", 1);
		assertThat(this.runner.execute(REQUEUE, this.keys.deadKeys(UUID.randomUUID().toString()), "", "10", WINDOW))
			.isEqualTo(1);
		assertThat(this.redis.opsForList().range(this.keys.ready(), 0, -1)).containsExactly("junk");
	}

	@Test
	void anEmptyElementIsHandedOutAsAnElementNotAsNothingClaimed() {
		this.redis.opsForList().rightPushAll(this.keys.ready(), "", "a|0|{}");
		List<?> taken = this.runner.execute(CLAIM, this.keys.claimKeys("t1"), "0", "60000", "100", "2", "t1", WINDOW);
		assertThat(taken).hasSize(4);
		assertThat(List.of(taken.get(0), taken.get(3))).containsExactly("", "a|1|{}");
		assertThat(this.redis.opsForZSet().range(this.keys.inFlight(), 0, -1)).containsExactlyInAnyOrder("t1#",
				"t1#a|1|{}");
		// its taker died before settling it: reaped back as the empty element it is
		this.redis.opsForZSet().add(this.keys.inFlight(), "t1#", 0);
		this.redis.delete(this.keys.nextDue());
		assertThat(claim("0", 60000, "t2").get(0)).isEqualTo("");
	}

	@Test
	void releasePutsTheMessageBackWhereItIsTakenNext() {
		this.redis.opsForList().rightPush(this.keys.ready(), "b|0|{}");
		this.redis.opsForZSet().add(this.keys.inFlight(), "t1#a|2|{}", Double.MAX_VALUE);
		assertThat(this.runner.execute(RELEASE, this.keys.releaseKeys(UUID.randomUUID().toString()), "a|2|{}", "0",
				"t0#a|2|{}", WINDOW))
			.as("another take")
			.isZero();
		assertThat(this.runner.execute(RELEASE, this.keys.releaseKeys(UUID.randomUUID().toString()), "a|2|{}", "0",
				"t1#a|2|{}", WINDOW))
			.isEqualTo(1);
		assertThat(this.redis.opsForList().range(this.keys.ready(), 0, -1)).containsExactly("a|1|{}", "b|0|{}");
	}

	@Test
	void aTakeWithNothingDueSkipsTheReaperOnceTheHintIsWritten() {
		this.redis.opsForList().rightPushAll(this.keys.ready(), "a|0|{}", "b|0|{}", "c|0|{}");
		long now = number(claim("0", 60_000, "t1").get(1));
		// the first take reaped (no hint yet) and wrote one: nothing is due before it,
		// and
		// it lives a second at most
		assertThat(hint()).isEqualTo(now + 1000);
		assertThat(this.redis.getExpire(this.keys.nextDue(), TimeUnit.MILLISECONDS)).isNotEqualTo(-1)
			.isLessThanOrEqualTo(1000);
		CommandStats used = null;
		String done = "t1#a|1|{}";
		for (int take = 2; used == null && take < 10; take++) {
			long hint = hint();
			RedisServer server = this.topology.server();
			CommandStats before = server.commandStats();
			List<?> reply = this.runner.execute(CLAIM, this.keys.claimKeys("t" + take), "0", "60000", "100", "1",
					"t" + take, WINDOW, done);
			CommandStats after = server.commandStats().since(before);
			assertThat(reply.get(2)).isEqualTo(1L);
			done = "t" + take + "#" + reply.get(0);
			this.redis.opsForList().rightPush(this.keys.ready(), "m" + take + "|0|{}");
			// measured while the hint stood (a take a second later reaps and writes a new
			// one)
			if (number(reply.get(1)) <= hint) {
				used = after;
			}
		}
		assertThat(used).as("a take while the hint stood").isNotNull();
		// INFO commandstats also counts the commands the script ran, and other clients'
		// of the shared server (a new pooled connection's PING, another test's
		// PUBLISH): the take's seven are counted by name (the hint and the take's record
		// read in one MGET, the record written by one SET), and the reaper's reads are
		// absent
		assertThat(used.asMap()).as(used.toString())
			.containsAllEntriesOf(
					Map.of("evalsha", 1L, "time", 1L, "zrem", 1L, "mget", 1L, "lpop", 1L, "zadd", 1L, "set", 1L));
		assertThat(used.calls("zrangebyscore") + used.calls("zrange")).as(used.toString()).isZero();
	}

	@Test
	void theReaperWritesTheHintJustBelowTheEarliestScore() {
		this.redis.opsForZSet().add(this.keys.delayed(), "d|0|{}", Double.MAX_VALUE);
		assertThat(claim("0", 60_000, "t0").get(0)).isEqualTo(0L);
		assertThat(this.redis.hasKey(this.keys.nextDue())).as("a take that finds nothing writes no hint").isFalse();
		this.redis.opsForList().rightPushAll(this.keys.ready(), "a|0|{}", "b|0|{}");
		long now = number(claim("0", 60_000, "t1").get(1));
		assertThat(hint()).as("nothing near: a second ahead").isEqualTo(now + 1000);
		this.redis.delete(this.keys.nextDue());
		List<?> taken = claim("0", 300, "t2");
		long deadline = number(taken.get(1)) + 300;
		assertThat(this.redis.opsForZSet().score(this.keys.inFlight(), "t2#b|1|{}")).isEqualTo(deadline);
		assertThat(hint()).as("the ms before the take's deadline").isEqualTo(deadline - 1);
	}

	@Test
	void everyScriptThatAddsAnEarlierScoreLowersTheHint() {
		this.redis.opsForList().rightPushAll(this.keys.ready(), "a|0|{}", "b|0|{}");
		claim("0", 60_000, "t1");
		claim("0", 60_000, "t2");
		standingHint();
		assertThat(delay("d|0|{}", 500, "none")).isOne();
		assertHintLoweredTo(score(this.keys.delayed(), "d|0|{}") - 1, "a delayed send");
		standingHint();
		assertThat(this.runner.execute(EXTEND, this.keys.extendKeys(), "t1#a|1|{}", "500")).isOne();
		assertHintLoweredTo(score(this.keys.inFlight(), "t1#a|1|{}") - 1, "a shorter visibility");
		standingHint();
		assertThat(fail("b|1|{}", "retry", "t2#b|1|{}")).isOne();
		assertHintLoweredTo(score(this.keys.delayed(), "b|1|{}") - 1, "a retry");
		standingHint();
		this.redis.opsForList().rightPush(this.keys.ready(), "c|0|{}");
		claim("0", 500, "t3");
		assertHintLoweredTo(score(this.keys.inFlight(), "t3#c|1|{}") - 1, "a take");
		standingHint();
		assertThat(delay("e|0|{}", 0, "none")).isOne();
		assertThat(this.redis.hasKey(this.keys.nextDue())).as("a message due at once: the next take reaps").isFalse();
	}

	/**
	 * The lowered hint expires at its own time: on a slow machine it may be gone before
	 * the test reads it, which is right once that time has passed (the standing hint it
	 * replaced would still be there).
	 */
	private void assertHintLoweredTo(long expected, String what) {
		String hint = this.redis.opsForValue().get(this.keys.nextDue());
		if (hint == null) {
			assertThat(redisNow()).as(what + ": a hint gone before its time").isGreaterThanOrEqualTo(expected);
		}
		else {
			assertThat(Long.parseLong(hint)).as(what).isEqualTo(expected);
		}
	}

	@Test
	void aLongerVisibilityLeavesTheHintAlone() {
		this.redis.opsForList().rightPush(this.keys.ready(), "a|0|{}");
		claim("0", 1000, "t1");
		long hint = hint();
		RedisServer server = this.topology.server();
		CommandStats before = server.commandStats();
		assertThat(this.runner.execute(EXTEND, this.keys.extendKeys(), "t1#a|1|{}", "60000")).isOne();
		CommandStats used = server.commandStats().since(before);
		assertThat(used.calls("get")).as(used.toString()).isZero();
		assertThat(this.redis.opsForValue().get(this.keys.nextDue())).isIn(null, Long.toString(hint));
	}

	@Test
	void aMissingHintMakesTheTakeReapAsWhenAnOlderRedkitLeftTheQueue() {
		// what an older Redkit leaves (or a snapshot from before the hint): an expired
		// take
		// and a due delayed message, no hint
		this.redis.opsForZSet().add(this.keys.inFlight(), "t0#a|1|{}", 1);
		this.redis.opsForZSet().add(this.keys.delayed(), "b|0|{}", 2);
		List<?> reply = this.runner.execute(CLAIM, this.keys.claimKeys("t1"), "0", "60000", "100", "2", "t1", WINDOW);
		assertThat(reply).hasSize(4);
		assertThat(List.of(reply.get(0), reply.get(3))).containsExactly("a|2|{}", "b|1|{}");
		assertThat(hint()).isPositive();
	}

	@Test
	void aHintTooFarAheadIsNotTrusted() {
		// a clock stepped back, or a value no script of ours wrote
		long now = redisNow();
		this.redis.opsForValue().set(this.keys.nextDue(), Long.toString(now + 3_600_000));
		this.redis.opsForZSet().add(this.keys.delayed(), "b|0|{}", now);
		assertThat(claim("0", 60_000, "t1").get(0)).isEqualTo("b|1|{}");
		assertThat(hint()).isLessThanOrEqualTo(redisNow() + 1000);
	}

	@Test
	void aScoreAddedByAWriterThatIgnoresTheHintIsReapedOnceTheHintPassed() {
		this.redis.opsForList().rightPush(this.keys.ready(), "c|0|{}");
		assertThat(claim("0", 60_000, "t0").get(0)).isEqualTo("c|1|{}");
		long hint = hint();
		// an older Redkit adds scores below the hint without lowering it
		this.redis.opsForZSet().add(this.keys.delayed(), "b|0|{}", 1);
		this.redis.opsForZSet().add(this.keys.inFlight(), "t9#a|1|{}", 1);
		List<String> taken = new ArrayList<>();
		await().atMost(Duration.ofSeconds(5)).until(() -> {
			boolean passed = redisNow() > hint;
			List<?> reply = this.runner.execute(CLAIM, this.keys.claimKeys("t2"), "0", "60000", "100", "2", "t2",
					WINDOW);
			if (reply.get(0) instanceof String) {
				taken.add((String) reply.get(0));
				reply.stream().skip(3).forEach((element) -> taken.add((String) element));
			}
			else {
				assertThat(passed).as("a take that starts once the hint passed reaps").isFalse();
			}
			return !taken.isEmpty();
		});
		assertThat(taken).containsExactlyInAnyOrder("b|1|{}", "a|2|{}");
	}

	@Test
	void aRedisFlushedAfterTheHintWasWrittenStillRedelivers() {
		this.redis.opsForList().rightPush(this.keys.ready(), "a|0|{}");
		claim("0", 60_000, "t1");
		assertThat(this.redis.hasKey(this.keys.nextDue())).isTrue();
		this.topology.server().flushAll();
		assertThat(delay("b|0|{}", 0, "none")).isOne();
		this.redis.opsForZSet().add(this.keys.inFlight(), "t0#a|1|{}", 1);
		List<?> reply = this.runner.execute(CLAIM, this.keys.claimKeys("t2"), "0", "60000", "100", "2", "t2", WINDOW);
		assertThat(reply).hasSize(4);
		assertThat(List.of(reply.get(0), reply.get(3))).containsExactly("a|2|{}", "b|1|{}");
	}

	private static long number(Object reply) {
		assertThat(reply).as("an integer reply").isInstanceOf(Long.class);
		return (Long) reply;
	}

	private long hint() {
		String hint = this.redis.opsForValue().get(this.keys.nextDue());
		assertThat(hint).as("the next-due hint").isNotNull();
		return Long.parseLong(hint);
	}

	/**
	 * Writes a hint a second ahead, as the reaper does when nothing is near.
	 */
	private void standingHint() {
		long at = redisNow() + 1000;
		this.redis.execute((RedisCallback<Object>) (connection) -> connection.execute("SET",
				this.keys.nextDue().getBytes(StandardCharsets.UTF_8),
				Long.toString(at).getBytes(StandardCharsets.UTF_8), "PXAT".getBytes(StandardCharsets.UTF_8),
				Long.toString(at).getBytes(StandardCharsets.UTF_8)));
	}

	private long score(String key, String member) {
		Double score = this.redis.opsForZSet().score(key, member);
		assertThat(score).as(member).isNotNull();
		return score.longValue();
	}

	private long redisNow() {
		Long now = this.redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
		return (now != null) ? now : 0;
	}

	private List<?> claim(String lifo, long visibilityMillis, String token) {
		return this.runner.execute(CLAIM, this.keys.claimKeys(token), lifo, Long.toString(visibilityMillis), "100", "1",
				token, WINDOW);
	}

	private Long ack(String entry) {
		return this.runner.execute(ACK, this.keys.ackKeys(UUID.randomUUID().toString()), entry, WINDOW);
	}

	private Long delay(String element, long millis, String policy) {
		return this.runner.execute(DELAY, this.keys.delayKeys(UUID.randomUUID().toString()), element,
				Long.toString(millis), policy, WINDOW);
	}

	private Long fail(String element, String mode) {
		return fail(element, mode, "t1#" + element);
	}

	private Long fail(String element, String mode, String entry) {
		return this.runner.execute(FAIL, this.keys.failKeys(UUID.randomUUID().toString()), element, mode, "10",
				element.substring(0, 1), "boom", "60000", entry, WINDOW);
	}

}
