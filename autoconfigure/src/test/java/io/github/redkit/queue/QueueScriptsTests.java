package io.github.redkit.queue;

import java.util.List;
import java.util.UUID;

import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.internal.QueueKeys;
import io.github.redkit.test.RedisTopologies;
import io.github.redkit.test.RedisTopology;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queue scripts called directly, on raw keys.
 */
@ParameterizedClass
@RedisTopologies(servers = true)
class QueueScriptsTests {

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
		long now = Long.parseLong((String) first.get(1));
		assertThat(this.redis.opsForZSet().score(this.keys.inFlight(), "t1#a|1|{}")).isEqualTo(now + 60_000.0);
		assertThat(claim("0", 60_000, "t2").get(0)).isEqualTo("b|5|{}");
		assertThat(this.redis.opsForZSet().range(this.keys.inFlight(), 0, -1)).containsExactlyInAnyOrder("t1#a|1|{}",
				"t2#b|5|{}");
		List<?> empty = claim("0", 60_000, "t3");
		assertThat(empty.get(0)).isEqualTo("");
		assertThat(Long.parseLong((String) empty.get(1))).as("wait hint = next in-flight deadline")
			.isBetween(59_000L, 60_000L);
	}

	@Test
	void claimAcknowledgesTheTakesItIsGivenFirstAndCountsThoseStillInFlight() {
		this.redis.opsForList().rightPushAll(this.keys.ready(), "a|0|{}", "b|0|{}");
		claim("0", 60_000, "t1");
		List<?> reply = this.runner.execute(CLAIM, this.keys.claimKeys(), "0", "60000", "100", "1", "t2", "t1#a|1|{}",
				"t9#a|1|{}");
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
		assertThat(this.runner.execute(SEND, List.of(this.keys.ready()), "b|0|{}", "c;k=v|0|{\"n\":1}")).isEqualTo(3);
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
		long now = Long.parseLong((String) claim("0", 1000, "t1").get(1));
		assertThat(this.runner.execute(EXTEND, List.of(this.keys.inFlight()), "t1#a|1|{}", "60000")).isOne();
		assertThat(this.redis.opsForZSet().score(this.keys.inFlight(), "t1#a|1|{}")).isBetween(now + 60_000.0,
				now + 61_000.0);
		assertThat(this.runner.execute(EXTEND, List.of(this.keys.inFlight()), "t2#a|1|{}", "60000")).isZero();
		assertThat(this.redis.opsForZSet().range(this.keys.inFlight(), 0, -1)).containsExactly("t1#a|1|{}");
	}

	@Test
	void claimReapsAtMostOneBatchOfExpiredMessages() {
		for (int i = 0; i < 150; i++) {
			this.redis.opsForZSet().add(this.keys.inFlight(), "m" + i + "|1|{}", 1);
		}
		assertThat(claim("1", 1000, "t").get(0)).isNotEqualTo("");
		assertThat(this.redis.opsForZSet().zCard(this.keys.inFlight())).isEqualTo(50 + 1);
		assertThat(this.redis.opsForList().size(this.keys.ready())).isEqualTo(99);
	}

	@Test
	void claimWithNothingPendingAsksForAnUnboundedWait() {
		assertThat(claim("0", 1000, "t")).map(String::valueOf).containsExactly("", "-1", "0");
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
		assertThat(this.runner.execute(REQUEUE, this.keys.deadKeys(), "a", "1")).isEqualTo(1);
		assertThat(this.redis.opsForList().range(this.keys.ready(), 0, -1)).containsExactly("a|0|{}");
	}

	@Test
	void releasePutsTheMessageBackWhereItIsTakenNext() {
		this.redis.opsForList().rightPush(this.keys.ready(), "b|0|{}");
		this.redis.opsForZSet().add(this.keys.inFlight(), "t1#a|2|{}", Double.MAX_VALUE);
		assertThat(this.runner.execute(RELEASE, List.of(this.keys.inFlight(), this.keys.ready()), "a|2|{}", "0",
				"t0#a|2|{}"))
			.as("another take")
			.isZero();
		assertThat(this.runner.execute(RELEASE, List.of(this.keys.inFlight(), this.keys.ready()), "a|2|{}", "0",
				"t1#a|2|{}"))
			.isEqualTo(1);
		assertThat(this.redis.opsForList().range(this.keys.ready(), 0, -1)).containsExactly("a|1|{}", "b|0|{}");
	}

	private List<?> claim(String lifo, long visibilityMillis, String token) {
		return this.runner.execute(CLAIM, this.keys.claimKeys(), lifo, Long.toString(visibilityMillis), "100", "1",
				token);
	}

	private Long ack(String entry) {
		return this.runner.execute(ACK, List.of(this.keys.inFlight()), entry);
	}

	private Long delay(String element, long millis, String policy) {
		return this.runner.execute(DELAY, List.of(this.keys.delayed(), this.keys.collapse()), element,
				Long.toString(millis), policy);
	}

	private Long fail(String element, String mode) {
		return this.runner.execute(FAIL, this.keys.failKeys(), element, mode, "0", element.substring(0, 1), "boom",
				"60000", "t1#" + element);
	}

}
