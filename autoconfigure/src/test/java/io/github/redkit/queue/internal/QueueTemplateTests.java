package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.stream.IntStream;

import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.MicrometerRedkitMetrics;
import io.github.redkit.queue.CollapsePolicy;
import io.github.redkit.queue.DeadLetter;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.internal.QueueTestSupport.Email;
import io.github.redkit.testsupport.CommandLog;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

@ParameterizedClass
@RedisTopologies(exercises = Exercises.BOTH)
class QueueTemplateTests {

	// taken and then settled while the stats are read
	private static final int STATS_MESSAGES = 300;

	@Parameter
	RedisTopology topology;

	QueueTestSupport support;

	RedisQueueTemplate template;

	StringRedisTemplate redis;

	/**
	 * The store the queues of this suite are kept in; {@link StreamQueueTemplateTests}
	 * runs the suite on the stream store.
	 */
	QueueStore store() {
		return QueueStore.LIST;
	}

	/**
	 * Skips a test of what only the list store does or has (delays, collapsing, LIFO, the
	 * next-due hint, its keys).
	 */
	void listStoreOnly() {
		assumeTrue(store() == QueueStore.LIST, "a list store feature");
	}

	@BeforeEach
	void setUp() {
		this.support = new QueueTestSupport(this.topology, store());
		this.template = this.support.template;
		this.redis = new StringRedisTemplate(this.topology.connectionFactory());
	}

	@Test
	void fifoHandsOutInSendOrder() {
		String queue = this.support.queue();
		this.template.send(queue, new Email("a", 1));
		this.template.sendAll(queue, List.of(new Email("b", 2), new Email("c", 3)));
		assertThat(this.template.size(queue)).isEqualTo(3);
		assertThat(drain(queue)).containsExactly(1, 2, 3);
	}

	@Test
	void aMalformedElementIsDeadLetteredAtOnceAndTheRestOfItsBatchIsHandedOut() {
		listStoreOnly();
		String queue = this.support.queue();
		String ready = QueueKeys.of(QueueTestSupport.KEYSPACE, queue).ready();
		this.template.send(queue, new Email("a", 1));
		// written by something other than Redkit: no fields, a delivery count that is
		// not one, an empty id, a header that cannot be decoded
		this.redis.opsForList().rightPushAll(ready, "garbage", "a|x|{}", "|0|{}", "x;h=%zz|0|{}");
		this.template.send(queue, new Email("b", 2));
		List<QueueMessage<Email>> batch = this.template.receive(queue, Email.class, 10);
		assertThat(batch).extracting((message) -> message.payload().number()).containsExactly(1, 2);
		assertThat(this.template.stats(queue)).isEqualTo(new QueueStats(0, 0, 2, 4, Duration.ZERO));
		List<DeadLetter> dead = this.template.deadLetters(queue, 10);
		assertThat(dead).extracting(DeadLetter::payloadJson)
			.containsExactlyInAnyOrder("garbage", "a|x|{}", "|1|{}", "x;h=%zz|1|{}");
		assertThat(dead).allSatisfy((letter) -> assertThat(letter.error()).contains("Not a Redkit queue element"));
		batch.forEach(this.template::ack);
		assertThat(this.template.stats(queue).inFlight()).isZero();
		this.template.send(queue, new Email("c", 3));
		assertThat(this.template.receive(queue, Email.class, 10)).extracting((message) -> message.payload().number())
			.containsExactly(3);
	}

	@Test
	void anEmptyElementIsDeadLetteredAtOnceAndTheRestOfItsBatchIsHandedOut() {
		listStoreOnly();
		String queue = this.support.queue();
		String ready = QueueKeys.of(QueueTestSupport.KEYSPACE, queue).ready();
		// an empty element first: the claim's reply once began with it, read as "nothing
		// claimed"
		this.redis.opsForList().rightPush(ready, "");
		this.template.sendAll(queue, List.of(new Email("a", 1), new Email("b", 2)));
		List<QueueMessage<Email>> batch = this.template.receive(queue, Email.class, 3);
		assertThat(batch).extracting((message) -> message.payload().number()).containsExactly(1, 2);
		List<DeadLetter> dead = this.template.deadLetters(queue, 10);
		assertThat(dead).singleElement().satisfies((letter) -> {
			assertThat(letter.id()).startsWith("unreadable.");
			assertThat(letter.payloadJson()).isEmpty();
			assertThat(letter.error()).contains("Not a Redkit queue element");
		});
		batch.forEach(this.template::ack);
		QueueStats stats = this.template.stats(queue);
		assertThat(stats.ready()).isZero();
		assertThat(stats.inFlight()).isZero();
	}

	@Test
	void anElementThatIsNotAMessageAtTheHeadHasNoAge() {
		listStoreOnly();
		String queue = this.support.queue();
		String ready = QueueKeys.of(QueueTestSupport.KEYSPACE, queue).ready();
		for (String foreign : List.of("", "hello", "zz|0|{}")) {
			this.redis.opsForList().leftPush(ready, foreign);
			assertThat(this.template.stats(queue).oldestAge()).as("the age of %s at the head", foreign)
				.isEqualTo(Duration.ZERO);
			this.redis.opsForList().leftPop(ready);
		}
	}

	@Test
	void anEmptyElementAloneIsDeadLetteredNotRedelivered() {
		listStoreOnly();
		String queue = this.support.queue();
		String ready = QueueKeys.of(QueueTestSupport.KEYSPACE, queue).ready();
		this.redis.opsForList().rightPush(ready, "");
		assertThat(this.template.receive(queue, Email.class)).isEmpty();
		assertThat(this.template.deadLetters(queue, 10)).singleElement()
			.satisfies((letter) -> assertThat(letter.id()).startsWith("unreadable."));
		assertThat(this.template.stats(queue)).isEqualTo(new QueueStats(0, 0, 0, 1, Duration.ZERO));
		// re-queued, it is dead-lettered again
		assertThat(this.template.requeueDeadLetters(queue)).isOne();
		assertThat(this.template.receive(queue, Email.class)).isEmpty();
		assertThat(this.template.stats(queue)).isEqualTo(new QueueStats(0, 0, 0, 1, Duration.ZERO));
	}

	@Test
	void sendIsOneScriptCallAndAckAndReceiveIsOneRoundTrip() {
		String queue = this.support.queue();
		RedisServer server = this.topology.server();
		// the send's script loaded first, on this queue's own node (a cluster's other
		// nodes have not seen it): a node that has not answers NOSCRIPT once, and the
		// recorded send would count the EVAL too
		this.template.send(queue, new Email("loaded", 0));
		CommandLog send = CommandLog.record(server, () -> this.template.send(queue, new Email("a", 1)));
		assertThat(send.clientCommands()).filteredOn((command) -> command.contains(queue))
			.singleElement()
			.matches((command) -> command.startsWith("\"evalsha\""));
		assertThat(send.scriptCommands()).extracting(QueueTemplateTests::name)
			.as("the send's record (applied once, whatever the client sends again), then the RPUSH (XADD)")
			.startsWith("set", (store() == QueueStore.LIST) ? "rpush" : "xadd");
		this.template.send(queue, new Email("b", 2));
		QueueMessage<Email> first = this.template.receive(queue, Email.class).orElseThrow();
		CommandLog next = CommandLog.record(server, () -> this.template.ackAndReceive(first, Email.class));
		assertThat(next.roundTrips((command) -> command.contains(queue))).isOne();
		assertThat(next.clientCommands()).filteredOn((command) -> command.contains(queue))
			.allMatch((command) -> command.startsWith("\"evalsha\""));
	}

	@Test
	void ackAndReceiveWithNothingDueIsNineCommands() {
		listStoreOnly();
		String queue = this.support.queue();
		this.template.sendAll(queue, IntStream.range(0, 20).mapToObj((i) -> new Email("x", i)).toList());
		// a new queue's first take reaps and writes the next-due hint
		QueueMessage<Email> done = this.template.receive(queue, Email.class).orElseThrow();
		String hintKey = QueueKeys.of(QueueTestSupport.KEYSPACE, queue).nextDue();
		RedisServer server = this.topology.server();
		CommandStats used = null;
		for (int take = 0; used == null && take < 10; take++) {
			long hint = Long.parseLong(this.redis.opsForValue().get(hintKey));
			CommandStats before = server.commandStats();
			QueueMessage<Email> next = this.template.ackAndReceive(done, Email.class).orElseThrow();
			CommandStats after = server.commandStats().since(before).without(server.backgroundCommands());
			// counted while the hint stood (a take a second later reaps and writes a new
			// one)
			if (redisNow() <= hint) {
				used = after;
			}
			done = next;
		}
		assertThat(used).as("an ackAndReceive while the hint stood").isNotNull();
		// INFO commandstats also counts the commands the script ran; a PING is another
		// client's (a new pooled connection's). The hint and the take's record are read
		// in one MGET; the record (a replay answers the same batch) is one SET; the ready
		// list and the in-flight set are type-checked (LLEN, ZCARD) before the first
		// write,
		// so that a WRONGTYPE error applies nothing
		assertThat(used.asMap()).as(used.toString())
			.containsAllEntriesOf(Map.of("evalsha", 1L, "time", 1L, "zrem", 1L, "mget", 1L, "lpop", 1L, "zadd", 1L,
					"set", 1L, "llen", 1L, "zcard", 1L));
		assertThat(used.total() - used.calls("ping")).as(used.toString()).isEqualTo(9);
	}

	@Test
	void withTheHintInPlaceADueDelayedMessageAndAnExpiredTakeAreDelivered() {
		listStoreOnly();
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofMillis(300), 3, CollapsePolicy.NONE);
		this.template.sendAll(queue, List.of(new Email("a", 1), new Email("b", 2)));
		QueueMessage<Email> held = this.template.receive(queue, Email.class).orElseThrow();
		QueueMessage<Email> done = this.template.receive(queue, Email.class).orElseThrow();
		assertThat(this.redis.hasKey(QueueKeys.of(QueueTestSupport.KEYSPACE, queue).nextDue())).isTrue();
		assertThat(this.template.sendDelayed(queue, new Email("c", 3), Duration.ofMillis(100))).isTrue();
		List<QueueMessage<Email>> taken = new ArrayList<>();
		QueueMessage<Email>[] previous = new QueueMessage[] { done };
		await().atMost(Duration.ofSeconds(5)).until(() -> {
			Optional<QueueMessage<Email>> next = (previous[0] != null)
					? this.template.ackAndReceive(previous[0], Email.class) : this.template.receive(queue, Email.class);
			previous[0] = next.orElse(null);
			next.ifPresent(taken::add);
			return taken.size() == 2;
		});
		assertThat(taken).extracting((message) -> message.payload().number()).containsExactlyInAnyOrder(1, 3);
		assertThat(taken).filteredOn((message) -> message.id().equals(held.id()))
			.singleElement()
			.satisfies((message) -> assertThat(message.deliveries()).isEqualTo(2));
		assertThat(this.template.ack(held)).as("its visibility ran out").isFalse();
	}

	@Test
	void batchReceiveTakesUpToNMessagesInOneScriptCallEachInFlightOnItsOwn() {
		String queue = this.support.queue();
		this.template.sendAll(queue, IntStream.range(0, 25).mapToObj((i) -> new Email("x", i)).toList());
		RedisServer server = this.topology.server();
		// the take's script loaded first (on another queue): a server that has not seen
		// it yet
		// answers NOSCRIPT once, and the recorded take would count the EVAL as a second
		// trip
		this.template.receive(this.support.queue(), Email.class, 1);
		List<List<QueueMessage<Email>>> taken = new ArrayList<>();
		CommandLog take = CommandLog.record(server, () -> taken.add(this.template.receive(queue, Email.class, 10)));
		assertThat(take.roundTrips((command) -> command.contains(queue))).isOne();
		assertThat(take.clientCommands()).filteredOn((command) -> command.contains(queue))
			.singleElement()
			.matches((command) -> command.startsWith("\"evalsha\""));
		assertThat(take.scriptCommands()).extracting(QueueTemplateTests::name)
			.as("the stream store's take: claim the expired, then read new ones, in one script")
			.contains((store() == QueueStore.LIST) ? "lpop" : "xreadgroup");
		if (store() == QueueStore.LIST) {
			assertThat(take.scriptCommands()).extracting(QueueTemplateTests::name)
				.as("a new queue's first take reaps: TIME, the hint's and the take's record's MGET, the type checks "
						+ "of the keys it may write (the reaper's too), 2 reaper reads, one LPOP with a count, one ZADD, "
						+ "the take's record, the 2 earliest scores and the fresh hint")
				.containsExactly("time", "mget", "llen", "zcard", "zcard", "type", "zrangebyscore", "zrangebyscore",
						"lpop", "zadd", "set", "zrange", "zrange", "set");
		}
		List<QueueMessage<Email>> batch = taken.get(0);
		assertThat(batch).extracting((message) -> message.payload().number())
			.containsExactlyElementsOf(IntStream.range(0, 10).boxed().toList());
		assertThat(batch).allMatch((message) -> message.deliveries() == 1);
		assertThat(this.template.stats(queue).inFlight()).isEqualTo(10);
		assertThat(this.template.ack(batch.get(3))).isTrue();
		assertThat(this.template.ack(batch.get(3))).isFalse();
		assertThat(this.template.stats(queue).inFlight()).isEqualTo(9);
		List<QueueMessage<Email>> settle = new ArrayList<>(batch);
		settle.remove(3);
		String hintValue = this.redis.opsForValue().get(QueueKeys.of(QueueTestSupport.KEYSPACE, queue).nextDue());
		long hint = (hintValue != null) ? Long.parseLong(hintValue) : -1;
		CommandLog next = CommandLog.record(server,
				() -> taken.add(this.template.ackAndReceive(settle, queue, Email.class, 50)));
		assertThat(next.roundTrips((command) -> command.contains(queue))).isOne();
		if (redisNow() <= hint) {
			assertThat(next.scriptCommands()).extracting(QueueTemplateTests::name)
				.as("with nothing due before the hint: the type checks, one ZREM of the 9, one LPOP with a count, "
						+ "one ZADD, the take's record")
				.containsExactly("time", "mget", "llen", "zcard", "zrem", "lpop", "zadd", "set");
		}
		assertThat(taken.get(1)).hasSize(15);
		assertThat(this.template.stats(queue)).isEqualTo(new QueueStats(0, 0, 15, 0, Duration.ZERO));
		assertThat(this.template.receive(queue, Email.class, 10)).isEmpty();
	}

	@Test
	void batchTakenMessagesExpireOneByOne() {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofMillis(300), 3, CollapsePolicy.NONE);
		this.template.sendAll(queue, List.of(new Email("a", 1), new Email("b", 2), new Email("c", 3)));
		List<QueueMessage<Email>> batch = this.template.receive(queue, Email.class, 3);
		assertThat(batch).hasSize(3);
		assertThat(this.template.ack(batch.get(1))).isTrue();
		List<QueueMessage<Email>> again = await().atMost(Duration.ofSeconds(5))
			.until(() -> this.template.receive(queue, Email.class, 10), (messages) -> messages.size() == 2);
		assertThat(again).extracting((message) -> message.payload().number()).containsExactlyInAnyOrder(1, 3);
		assertThat(again).allMatch((message) -> message.deliveries() == 2);
		assertThat(this.template.ack(batch.get(0))).as("its first delivery expired").isFalse();
	}

	@Test
	void lifoHandsOutTheNewestFirst() {
		listStoreOnly();
		String queue = this.support.queue(QueueOrder.LIFO, Duration.ofSeconds(30), 3, CollapsePolicy.NONE);
		this.template.sendAll(queue, List.of(new Email("a", 1), new Email("b", 2), new Email("c", 3)));
		assertThat(drain(queue)).containsExactly(3, 2, 1);
	}

	@Test
	void sendAllPipelinesManyMessages() {
		String queue = this.support.queue();
		this.template.sendAll(queue, IntStream.range(0, 2500).mapToObj((i) -> new Email("x", i)).toList());
		assertThat(this.template.size(queue)).isEqualTo(2500);
		assertThat(this.template.stats(queue).oldestAge()).isLessThan(Duration.ofMinutes(1));
	}

	@Test
	void anAcknowledgedMessageIsGoneAndAnUnacknowledgedOneIsInFlight() {
		String queue = this.support.queue();
		this.template.sendAll(queue, List.of(new Email("a", 1), new Email("b", 2)));
		QueueMessage<Email> first = this.template.receive(queue, Email.class).orElseThrow();
		QueueMessage<Email> second = this.template.receive(queue, Email.class).orElseThrow();
		assertThat(first.deliveries()).isEqualTo(1);
		assertThat(first.payload()).isEqualTo(new Email("a", 1));
		assertThat(this.template.ack(first)).isTrue();
		assertThat(this.template.ack(first)).isFalse();
		QueueStats stats = this.template.stats(queue);
		assertThat(stats.ready()).isZero();
		assertThat(stats.inFlight()).isEqualTo(1);
		assertThat(this.template.receive(queue, Email.class)).isEmpty();
		assertThat(this.template.ack(second)).isTrue();
		assertThat(this.template.stats(queue)).isEqualTo(new QueueStats(0, 0, 0, 0, Duration.ZERO));
	}

	@Test
	void ackAndReceiveSettlesOneAndTakesTheNextInOneCall() {
		String queue = this.support.queue();
		this.template.sendAll(queue, List.of(new Email("a", 1), new Email("b", 2)));
		QueueMessage<Email> first = this.template.receive(queue, Email.class).orElseThrow();
		QueueMessage<Email> second = this.template.ackAndReceive(first, Email.class).orElseThrow();
		assertThat(second.payload().number()).isEqualTo(2);
		assertThat(this.template.ack(first)).isFalse();
		assertThat(this.template.ackAndReceive(second, Email.class)).isEmpty();
		assertThat(this.template.stats(queue).inFlight()).isZero();
	}

	@Test
	void aFailedMessageIsRetriedThenDeadLetteredWithItsLastErrorAndCanBeRequeued() {
		String queue = this.support.queue();
		this.template.send(queue, new Email("a", 1));
		for (int attempt = 1; attempt <= 3; attempt++) {
			QueueMessage<Email> message = await().atMost(Duration.ofSeconds(5))
				.until(() -> this.template.receive(queue, Email.class), Optional::isPresent)
				.get();
			assertThat(message.deliveries()).isEqualTo(attempt);
			FailureOutcome outcome = this.template.fail(message, new IllegalStateException("boom " + attempt));
			assertThat(outcome).isEqualTo((attempt < 3) ? FailureOutcome.RETRIED : FailureOutcome.DEAD_LETTERED);
		}
		assertThat(this.template.receive(queue, Email.class)).isEmpty();
		List<DeadLetter> dead = this.template.deadLetters(queue, 10);
		assertThat(dead).singleElement().satisfies((letter) -> {
			assertThat(letter.deliveries()).isEqualTo(3);
			assertThat(letter.error()).isEqualTo("java.lang.IllegalStateException: boom 3");
			assertThat(letter.payloadJson()).contains("\"to\":\"a\"");
		});
		assertThat(this.template.requeueDeadLetter(queue, dead.get(0).id())).isTrue();
		assertThat(this.template.requeueDeadLetter(queue, dead.get(0).id())).isFalse();
		QueueMessage<Email> again = this.template.receive(queue, Email.class).orElseThrow();
		assertThat(again.deliveries()).isEqualTo(1);
		assertThat(again.id()).isEqualTo(dead.get(0).id());
	}

	@Test
	void requeueAllMovesEveryDeadLetterBack() {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(30), 1, CollapsePolicy.NONE);
		this.template.sendAll(queue, IntStream.range(0, 150).mapToObj((i) -> new Email("x", i)).toList());
		Optional<QueueMessage<Email>> message;
		while ((message = this.template.receive(queue, Email.class)).isPresent()) {
			assertThat(this.template.fail(message.get(), new RuntimeException()))
				.isEqualTo(FailureOutcome.DEAD_LETTERED);
		}
		assertThat(this.template.stats(queue).deadLetters()).isEqualTo(150);
		assertThat(this.template.requeueDeadLetters(queue)).isEqualTo(150);
		assertThat(this.template.size(queue)).isEqualTo(150);
		assertThat(this.template.deadLetters(queue, 10)).isEmpty();
	}

	@Test
	void anUnacknowledgedMessageComesBackAfterTheVisibilityTimeout() {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofMillis(200), 3, CollapsePolicy.NONE);
		this.template.send(queue, new Email("a", 1));
		QueueMessage<Email> taken = this.template.receive(queue, Email.class).orElseThrow();
		assertThat(this.template.receive(queue, Email.class)).isEmpty();
		QueueMessage<Email> again = await().atMost(Duration.ofSeconds(5))
			.until(() -> this.template.receive(queue, Email.class), Optional::isPresent)
			.get();
		assertThat(again.id()).isEqualTo(taken.id());
		assertThat(again.deliveries()).isEqualTo(2);
		assertThat(this.template.ack(taken)).as("the first taker lost it").isFalse();
		assertThat(this.template.fail(taken, new RuntimeException())).isEqualTo(FailureOutcome.NOT_OWNED);
		assertThat(this.template.ack(again)).isTrue();
	}

	@Test
	void extendKeepsAMessageWhileHeldAndAnswersFalseOnceAnotherConsumerTookIt() {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofMillis(300), 3, CollapsePolicy.NONE);
		this.template.send(queue, new Email("a", 1));
		QueueMessage<Email> taken = this.template.receive(queue, Email.class).orElseThrow();
		listStoreOnly();
		assertThat(this.template.extend(taken, Duration.ofSeconds(30))).isTrue();
		StringRedisTemplate redis = new StringRedisTemplate(this.topology.connectionFactory());
		long now = redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
		assertThat(redis.opsForZSet().rangeWithScores(QueueKeys.of(QueueTestSupport.KEYSPACE, queue).inFlight(), 0, -1))
			.singleElement()
			.satisfies((entry) -> assertThat(entry.getScore()).as("deadline on the Redis clock")
				.isBetween(now + 25_000.0, now + 31_000.0));
		assertThat(this.template.extend(taken, Duration.ofMillis(300))).isTrue();
		QueueMessage<Email> again = await().atMost(Duration.ofSeconds(5))
			.until(() -> this.template.receive(queue, Email.class), Optional::isPresent)
			.get();
		assertThat(again.id()).isEqualTo(taken.id());
		assertThat(this.template.extend(taken, Duration.ofSeconds(30))).as("lost to the second consumer").isFalse();
		assertThat(this.template.extend(again, Duration.ofSeconds(30))).isTrue();
		assertThat(this.template.ack(again)).isTrue();
		assertThat(this.template.extend(again, Duration.ofSeconds(30))).as("settled").isFalse();
	}

	/**
	 * A take its holder failed (a retry) is no longer the holder's: an extend, an ack, a
	 * release or another failure of it answers as for a take claimed by another consumer,
	 * and changes nothing (the retry is delivered again when its backoff ends).
	 */
	@Test
	void aRetriedTakeIsNoLongerItsHolders() {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(30), 3, CollapsePolicy.NONE,
				Duration.ofSeconds(2));
		this.template.send(queue, new Email("a", 1));
		QueueMessage<Email> taken = this.template.receive(queue, Email.class).orElseThrow();
		assertThat(this.template.fail(taken, new IllegalStateException("again"))).isEqualTo(FailureOutcome.RETRIED);
		assertThat(this.template.extend(taken, Duration.ofSeconds(30))).as("an extend after the retry").isFalse();
		assertThat(this.template.ack(taken)).as("an ack after the retry").isFalse();
		assertThat(this.template.release(taken)).as("a release after the retry").isFalse();
		assertThat(this.template.fail(taken, new IllegalStateException("late"))).as("a failure after the retry")
			.isEqualTo(FailureOutcome.NOT_OWNED);
		QueueMessage<Email> again = await().atMost(Duration.ofSeconds(10))
			.until(() -> this.template.receive(queue, Email.class), Optional::isPresent)
			.get();
		assertThat(again.id()).isEqualTo(taken.id());
		assertThat(again.deliveries()).isEqualTo(2);
		assertThat(this.template.ack(again)).isTrue();
		assertThat(this.template.stats(queue)).isEqualTo(new QueueStats(0, 0, 0, 0, Duration.ZERO));
	}

	@Test
	void aLateAckOfALostTakeLeavesTheNextTakeOfTheSameMessageInFlightAndIsCounted() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		QueueTestSupport counted = new QueueTestSupport(this.topology, new MicrometerRedkitMetrics(() -> registry),
				RedkitObservations.NONE, store());
		RedisQueueTemplate template = counted.template;
		String queue = counted.queue(QueueOrder.FIFO, Duration.ofMillis(300), 2, CollapsePolicy.NONE);
		template.send(queue, new Email("a", 1));
		QueueMessage<Email> lost = template.receive(queue, Email.class).orElseThrow();
		QueueMessage<Email> second = await().atMost(Duration.ofSeconds(5))
			.until(() -> template.receive(queue, Email.class), Optional::isPresent)
			.get();
		assertThat(template.fail(second, new IllegalStateException("bad"))).isEqualTo(FailureOutcome.DEAD_LETTERED);
		assertThat(template.requeueDeadLetter(queue, lost.id())).isTrue();
		// the same message, with the same delivery count as the lost take: only the take
		// tells them apart
		QueueMessage<Email> third = template.receive(queue, Email.class).orElseThrow();
		assertThat(third.deliveries()).isEqualTo(lost.deliveries());
		assertThat(template.ack(lost)).as("a late ack").isFalse();
		assertThat(template.ackAndReceive(lost, Email.class)).isEmpty();
		assertThat(template.stats(queue).inFlight()).as("the third take is still in flight").isOne();
		assertThat(registry.get("redkit.queue.messages").tags("queue", queue, "outcome", "late-ack").counter().count())
			.isEqualTo(2);
		assertThat(registry.find("redkit.queue.messages").tags("outcome", "processed").counter()).isNull();
		assertThat(template.ack(third)).isTrue();
		assertThat(template.stats(queue).inFlight()).isZero();
	}

	@Test
	void aLateCallOfATakeReleasedAndTakenAgainByAnotherInstanceLeavesTheNewTakeAlone() {
		String queue = this.support.queue();
		RedisQueueTemplate other = this.support.otherInstance();
		this.template.send(queue, new Email("a", 1));
		QueueMessage<Email> first = this.template.receive(queue, Email.class).orElseThrow();
		assertThat(this.template.release(first)).isTrue();
		QueueMessage<Email> second = other.receive(queue, Email.class).orElseThrow();
		// the same message with the same delivery count: only the take tells them apart
		assertThat(second.id()).isEqualTo(first.id());
		assertThat(second.deliveries()).isEqualTo(first.deliveries());
		assertThat(this.template.extend(first, Duration.ofSeconds(1))).as("a late extend").isFalse();
		assertThat(this.template.ack(first)).as("a late ack").isFalse();
		assertThat(this.template.ackAndReceive(first, Email.class)).as("a late ack in a take").isEmpty();
		assertThat(this.template.fail(first, new IllegalStateException("late"))).as("a late failure")
			.isEqualTo(FailureOutcome.NOT_OWNED);
		assertThat(this.template.release(first)).as("a late release").isFalse();
		assertThat(this.template.stats(queue).inFlight()).as("the second take is still held").isOne();
		assertThat(other.ack(second)).isTrue();
		assertThat(this.template.stats(queue)).isEqualTo(new QueueStats(0, 0, 0, 0, Duration.ZERO));
	}

	@Test
	void aLateBatchAckOfTakesReleasedAndTakenAgainByAnotherInstanceLeavesTheNewTakesAlone() {
		String queue = this.support.queue();
		RedisQueueTemplate other = this.support.otherInstance();
		this.template.sendAll(queue, List.of(new Email("a", 1), new Email("b", 2)));
		List<QueueMessage<Email>> first = this.template.receive(queue, Email.class, 2);
		assertThat(first).hasSize(2);
		first.forEach((message) -> assertThat(this.template.release(message)).isTrue());
		List<QueueMessage<Email>> second = other.receive(queue, Email.class, 2);
		// the same messages with the same delivery counts: only the consumer tells them
		// apart, in the batch's one look-up as in a single ack's
		assertThat(second).extracting(QueueMessage::deliveries)
			.containsExactlyElementsOf(first.stream().map(QueueMessage::deliveries).toList());
		assertThat(this.template.ackAndReceive(first, queue, Email.class, 2)).as("a late batch ack in a take")
			.isEmpty();
		assertThat(this.template.stats(queue).inFlight()).as("the second takes are still held").isEqualTo(2);
		second.forEach((message) -> assertThat(other.ack(message)).isTrue());
		assertThat(this.template.stats(queue)).isEqualTo(new QueueStats(0, 0, 0, 0, Duration.ZERO));
	}

	@Test
	void statsReadEveryCountAtOneInstantWhileMessagesAreAcknowledged() {
		// an ack between two reads of one stats() would count a taken message as ready
		String queue = statsWhileEveryTakenMessageIs(this.template::ack, (stats) -> {
			assertThat(stats.ready()).as("every message is taken: %s", stats).isZero();
			assertThat(stats.oldestAge()).isZero();
		});
		assertThat(this.template.stats(queue)).isEqualTo(new QueueStats(0, 0, 0, 0, Duration.ZERO));
	}

	@Test
	void statsReadEveryCountAtOneInstantWhileMessagesAreReleased() {
		// a release between the reads of the ready and the taken messages would count
		// the message in neither
		statsWhileEveryTakenMessageIs(this.template::release,
				(stats) -> assertThat(stats.ready() + stats.inFlight()).as("every message: %s", stats)
					.isEqualTo(STATS_MESSAGES));
	}

	/**
	 * Takes every message of a queue, settles them one by one in the background and reads
	 * the queue's stats until they are all settled.
	 * @return the queue
	 */
	private String statsWhileEveryTakenMessageIs(Consumer<QueueMessage<Email>> settle, Consumer<QueueStats> check) {
		String queue = this.support.queue();
		this.template.sendAll(queue, IntStream.range(0, STATS_MESSAGES).mapToObj((i) -> new Email("x", i)).toList());
		List<QueueMessage<Email>> held = new ArrayList<>();
		while (held.size() < STATS_MESSAGES) {
			held.addAll(this.template.receive(queue, Email.class, 10));
		}
		CompletableFuture<Void> settled = CompletableFuture.runAsync(() -> held.forEach(settle));
		int reads = 0;
		while (!settled.isDone() || reads == 0) {
			check.accept(this.template.stats(queue));
			reads++;
		}
		settled.join();
		check.accept(this.template.stats(queue));
		return queue;
	}

	@Test
	void releaseGivesAMessageBackAtOnceWithoutCountingTheDelivery() {
		String queue = this.support.queue();
		this.template.sendAll(queue, List.of(new Email("a", 1), new Email("b", 2)));
		QueueMessage<Email> taken = this.template.receive(queue, Email.class).orElseThrow();
		assertThat(this.template.release(taken)).isTrue();
		assertThat(this.template.release(taken)).isFalse();
		QueueMessage<Email> again = this.template.receive(queue, Email.class).orElseThrow();
		assertThat(again.id()).isEqualTo(taken.id());
		assertThat(again.deliveries()).isEqualTo(1);
	}

	@Test
	void aDelayedMessageBecomesReadyOnTheRedisClock() {
		listStoreOnly();
		String queue = this.support.queue();
		assertThat(this.template.sendDelayed(queue, new Email("a", 1), Duration.ofMillis(300))).isTrue();
		assertThat(this.template.receive(queue, Email.class)).isEmpty();
		assertThat(this.template.stats(queue).delayed()).isEqualTo(1);
		QueueMessage<Email> message = await().atMost(Duration.ofSeconds(5))
			.until(() -> this.template.receive(queue, Email.class), Optional::isPresent)
			.get();
		assertThat(message.payload()).isEqualTo(new Email("a", 1));
	}

	@Test
	void firstWinsDropsARepeatInsideTheDelay() {
		listStoreOnly();
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(30), 3, CollapsePolicy.FIRST_WINS);
		assertThat(this.template.sendDelayed(queue, new Email("a", 1), Duration.ofMillis(300))).isTrue();
		assertThat(this.template.sendDelayed(queue, new Email("a", 1), Duration.ofSeconds(60))).isFalse();
		assertThat(this.template.sendDelayed(queue, new Email("b", 1), Duration.ofMillis(300))).isTrue();
		assertThat(this.template.stats(queue).delayed()).isEqualTo(2);
		List<Integer> taken = new ArrayList<>();
		await().atMost(Duration.ofSeconds(5)).until(() -> {
			this.template.receive(queue, Email.class).ifPresent((m) -> taken.add(m.payload().number()));
			return taken.size() == 2;
		});
		assertThat(this.template.sendDelayed(queue, new Email("a", 1), Duration.ofMillis(10)))
			.as("once due, the same payload schedules again")
			.isTrue();
	}

	@Test
	void lastWinsRestartsTheDelay() {
		listStoreOnly();
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(30), 3, CollapsePolicy.LAST_WINS);
		assertThat(this.template.sendDelayed(queue, new Email("a", 1), Duration.ofMillis(100))).isTrue();
		assertThat(this.template.sendDelayed(queue, new Email("a", 1), Duration.ofSeconds(60))).isFalse();
		assertThat(this.template.stats(queue).delayed()).isEqualTo(1);
		await().during(Duration.ofMillis(400))
			.atMost(Duration.ofSeconds(2))
			.until(() -> this.template.receive(queue, Email.class).isEmpty());
		assertThat(this.template.sendDelayed(queue, new Email("a", 1), Duration.ofMillis(50))).isFalse();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.template.receive(queue, Email.class).isPresent());
		assertThat(this.template.stats(queue).delayed()).isZero();
	}

	@Test
	void noneKeepsEveryMessage() {
		listStoreOnly();
		String queue = this.support.queue();
		assertThat(this.template.sendDelayed(queue, new Email("a", 1), Duration.ofMillis(10))).isTrue();
		assertThat(this.template.sendDelayed(queue, new Email("a", 1), Duration.ofMillis(10))).isTrue();
		List<QueueMessage<Email>> taken = new ArrayList<>();
		await().atMost(Duration.ofSeconds(5)).until(() -> {
			this.template.receive(queue, Email.class).ifPresent(taken::add);
			return taken.size() == 2;
		});
		assertThat(taken.get(0).id()).isNotEqualTo(taken.get(1).id());
	}

	List<Integer> drain(String queue) {
		List<Integer> numbers = new ArrayList<>();
		Optional<QueueMessage<Email>> message;
		while ((message = this.template.receive(queue, Email.class)).isPresent()) {
			numbers.add(message.get().payload().number());
			this.template.ack(message.get());
		}
		return numbers;
	}

	long redisNow() {
		Long now = this.redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
		return (now != null) ? now : 0;
	}

	static String name(String command) {
		return command.substring(1, command.indexOf('"', 1));
	}

}
