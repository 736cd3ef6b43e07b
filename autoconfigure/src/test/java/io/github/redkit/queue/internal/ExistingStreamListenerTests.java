package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redkit.queue.BackoffPolicy;
import io.github.redkit.queue.CollapsePolicy;
import io.github.redkit.queue.DeadLetter;
import io.github.redkit.queue.ExistingStream;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueMessageHandler;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.internal.QueueTestSupport.Email;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.stream.Consumer;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamInfo.XInfoConsumer;
import org.springframework.data.redis.connection.stream.StreamReadOptions;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A queue that reads a stream another application writes (plain XADD entries, any fields)
 * through a consumer group: entries written before and after start, from 0, $ or an id,
 * retry and dead letters, an existing group's entries of a consumer that died, a
 * malformed entry, the start-up refusals and a stopped consumer leaving its group.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.SCRIPTS)
class ExistingStreamListenerTests {

	@Parameter
	RedisTopology topology;

	private QueueTestSupport support;

	private StringRedisTemplate redis;

	private final List<DefaultQueueListenerContainer> containers = new CopyOnWriteArrayList<>();

	@BeforeEach
	void setUp() {
		this.support = new QueueTestSupport(this.topology, QueueStore.STREAM);
		this.redis = new StringRedisTemplate(this.topology.connectionFactory());
	}

	@AfterEach
	void tearDown() {
		this.containers.forEach(DefaultQueueListenerContainer::stop);
		this.support.close();
	}

	@Test
	void readsEntriesWrittenBeforeAndAfterStartFromTheStartAndKeepsThem() {
		String key = "orders-" + UUID.randomUUID();
		xadd(key, Map.of("order", "1", "status", "paid"));
		xadd(key, Map.of("order", "2", "status", "paid"));
		String queue = queue(key, "0", null, 3);
		List<Object> received = new CopyOnWriteArrayList<>();
		start(queue, QueueTestSupport.handler(Map.class, received::add));
		xadd(key, Map.of("order", "3", "status", "shipped"));
		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 3);
		assertThat(received).containsExactly(Map.of("order", "1", "status", "paid"),
				Map.of("order", "2", "status", "paid"), Map.of("order", "3", "status", "shipped"));
		await().atMost(Duration.ofSeconds(5)).until(() -> pending(key) == 0);
		assertThat(this.redis.opsForStream().size(key)).as("acknowledged, never deleted: the stream is theirs")
			.isEqualTo(3);
	}

	@Test
	void fromDollarReadsOnlyEntriesAddedAfterTheGroupWasMade() {
		String key = "orders-" + UUID.randomUUID();
		xadd(key, Map.of("order", "old"));
		String queue = queue(key, "$", null, 3);
		List<Object> received = new CopyOnWriteArrayList<>();
		start(queue, QueueTestSupport.handler(Map.class, received::add));
		xadd(key, Map.of("order", "new"));
		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);
		assertThat(received).containsExactly(Map.of("order", "new"));
	}

	@Test
	void fromAnIdReadsTheEntriesAfterIt() {
		String key = "orders-" + UUID.randomUUID();
		xadd(key, Map.of("order", "1"));
		RecordId second = xadd(key, Map.of("order", "2"));
		xadd(key, Map.of("order", "3"));
		String queue = queue(key, second.getValue(), null, 3);
		List<Object> received = new CopyOnWriteArrayList<>();
		start(queue, QueueTestSupport.handler(Map.class, received::add));
		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);
		assertThat(received).containsExactly(Map.of("order", "3"));
	}

	@Test
	void aListenerGetsThePayloadFieldConvertedOrTheWholeMessage() throws Exception {
		String key = "orders-" + UUID.randomUUID();
		RecordId id = xadd(key, Map.of("payload", "{\"to\":\"a@b\",\"number\":7}", "source", "billing"));
		String queue = queue(key, "0", "payload", 3);
		List<QueueMessage<?>> received = new CopyOnWriteArrayList<>();
		Listener listener = new Listener(received);
		start(queue, new MethodQueueMessageHandler(listener,
				Listener.class.getDeclaredMethod("onEmail", QueueMessage.class)));
		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);
		QueueMessage<?> message = received.get(0);
		assertThat(message.payload()).isEqualTo(new Email("a@b", 7));
		assertThat(message.id()).isEqualTo(id.getValue());
		assertThat(message.deliveries()).isEqualTo(1);
		assertThat(message.headers()).containsEntry("source", "billing");
		assertThat(message.sentAt().toEpochMilli()).isEqualTo(id.getTimestamp());
	}

	@Test
	void aStringPayloadIsTheFieldsTextAsItIs() {
		String key = "orders-" + UUID.randomUUID();
		xadd(key, Map.of("body", "plain text, not JSON"));
		String queue = queue(key, "0", "body", 3);
		List<Object> received = new CopyOnWriteArrayList<>();
		start(queue, QueueTestSupport.handler(String.class, received::add));
		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);
		assertThat(received).containsExactly("plain text, not JSON");
	}

	@Test
	void aFailingEntryIsRetriedThenDeadLetteredWithItsFields() {
		String key = "orders-" + UUID.randomUUID();
		RecordId id = xadd(key, Map.of("order", "9"));
		String queue = queue(key, "0", null, 3);
		AtomicInteger calls = new AtomicInteger();
		start(queue, QueueTestSupport.handler(Map.class, (payload) -> {
			calls.incrementAndGet();
			throw new IllegalStateException("no stock");
		}));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.support.template.deadLetters(queue, 10).size() == 1);
		assertThat(calls).hasValue(3);
		DeadLetter letter = this.support.template.deadLetters(queue, 10).get(0);
		assertThat(letter.id()).isEqualTo(id.getValue());
		assertThat(letter.payloadJson()).isEqualTo("{\"order\":\"9\"}");
		assertThat(letter.error()).isEqualTo("java.lang.IllegalStateException: no stock");
		assertThat(pending(key)).isZero();
		assertThat(this.redis.opsForStream().size(key)).isEqualTo(1);
		assertThatIllegalArgumentException().isThrownBy(() -> this.support.template.requeueDeadLetters(queue))
			.withMessageContaining("redkit.queue.queues." + queue + ".stream-key");
	}

	@Test
	void aDeadLetterIsListedUnderItsEntryIdWithItsFieldsWhateverTheyHold() {
		String key = "orders-" + UUID.randomUUID();
		// a value that reads like a Redkit element ("<id>|<deliveries>|<json>")
		RecordId id = xadd(key, Map.of("note", "a|3|b"));
		String queue = queue(key, "0", null, 1);
		QueueMessage<Map> taken = this.support.template.receive(queue, Map.class).orElseThrow();
		assertThat(this.support.template.fail(taken, new IllegalStateException("no")))
			.isEqualTo(FailureOutcome.DEAD_LETTERED);
		DeadLetter letter = this.support.template.deadLetters(queue, 10).get(0);
		assertThat(letter.id()).isEqualTo(id.getValue());
		assertThat(letter.payloadJson()).isEqualTo("{\"note\":\"a|3|b\"}");
	}

	@Test
	void anEntryWithoutThePayloadFieldIsDeadLetteredAtOnceWithTheReason() {
		String key = "orders-" + UUID.randomUUID();
		RecordId bad = xadd(key, Map.of("other", "x"));
		xadd(key, Map.of("payload", "{\"to\":\"c\",\"number\":1}"));
		String queue = queue(key, "0", "payload", 3);
		List<Object> received = new CopyOnWriteArrayList<>();
		start(queue, QueueTestSupport.handler(Email.class, received::add));
		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);
		assertThat(received).containsExactly(new Email("c", 1));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.support.template.deadLetters(queue, 10).size() == 1);
		DeadLetter letter = this.support.template.deadLetters(queue, 10).get(0);
		assertThat(letter.id()).isEqualTo(bad.getValue());
		assertThat(letter.payloadJson()).isEqualTo("{\"other\":\"x\"}");
		assertThat(letter.error()).contains("has no field 'payload'")
			.contains("redkit.queue.queues." + queue + ".payload-field");
		await().atMost(Duration.ofSeconds(5)).until(() -> pending(key) == 0);
	}

	@Test
	void anExistingGroupIsKeptAndTheEntriesOfAConsumerThatDiedAreClaimedAfterTheVisibilityTimeout() {
		String key = "orders-" + UUID.randomUUID();
		xadd(key, Map.of("order", "1"));
		this.redis.opsForStream().createGroup(key, ReadOffset.from("0"), "billing");
		List<MapRecord<String, Object, Object>> taken = this.redis.opsForStream()
			.read(Consumer.from("billing", "died"), StreamReadOptions.empty().count(10),
					StreamOffset.create(key, ReadOffset.lastConsumed()));
		assertThat(taken).hasSize(1);
		xadd(key, Map.of("order", "2"));
		String queue = queue(key, "billing", "$", null, 3, Duration.ofMillis(300));
		List<Object> received = new CopyOnWriteArrayList<>();
		List<Integer> deliveries = new CopyOnWriteArrayList<>();
		start(queue, new QueueMessageHandler() {

			@Override
			public java.lang.reflect.Type payloadType() {
				return Map.class;
			}

			@Override
			public void handle(@Nullable Object payload) {
				throw new UnsupportedOperationException();
			}

			@Override
			public void handle(QueueMessage<?> message) {
				deliveries.add(message.deliveries());
				received.add(message.payload());
			}

		});
		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 2);
		assertThat(received).as("the group kept its place: $ applies only to a group Redkit creates")
			.containsExactlyInAnyOrder(Map.of("order", "1"), Map.of("order", "2"));
		assertThat(deliveries).containsExactlyInAnyOrder(1, 2);
		await().atMost(Duration.ofSeconds(5)).until(() -> pending(key, "billing") == 0);
	}

	@Test
	void aStoppedConsumerWithNothingPendingLeavesTheGroup() {
		String key = "orders-" + UUID.randomUUID();
		String queue = queue(key, "0", null, 3);
		List<Object> received = new CopyOnWriteArrayList<>();
		DefaultQueueListenerContainer container = start(queue, QueueTestSupport.handler(Map.class, received::add));
		xadd(key, Map.of("order", "1"));
		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);
		assertThat(this.redis.opsForStream().consumers(key, "orders").size()).isEqualTo(1);
		container.stop();
		assertThat(this.redis.opsForStream().consumers(key, "orders").size()).isZero();
	}

	@Test
	void aStoppedConsumerOfARedkitStreamQueueLeavesTheGroupToo() {
		String queue = this.support.queue();
		List<Object> received = new CopyOnWriteArrayList<>();
		DefaultQueueListenerContainer container = start(queue, QueueTestSupport.handler(Email.class, received::add));
		this.support.template.send(queue, new Email("a", 1));
		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);
		String stream = QueueKeys.of(QueueTestSupport.KEYSPACE, queue).stream();
		assertThat(this.redis.opsForStream().consumers(stream, StreamQueueStore.GROUP).size()).isEqualTo(1);
		container.stop();
		assertThat(this.redis.opsForStream().consumers(stream, StreamQueueStore.GROUP).size()).isZero();
	}

	/**
	 * The application that writes the stream reads it with the same group too, under
	 * names of its own (a reader with {@code NOACK} holds nothing pending): a Redkit stop
	 * sweeps only the idle consumers Redkit named, never the application's (review34
	 * finding 6).
	 */
	@Test
	void aStopSweepsOnlyTheIdleConsumersRedkitNamed() {
		String key = "orders-" + UUID.randomUUID();
		Duration visibility = Duration.ofMillis(200);
		String queue = queue(key, "orders", "$", null, 3, visibility);
		xadd(key, Map.of("order", "1"));
		xadd(key, Map.of("order", "2"));
		// the application's reader, and the consumer of a Redkit instance that ended:
		// both
		// hold nothing
		for (String consumer : List.of("billing-1", "redkit-ended")) {
			this.redis.opsForStream()
				.read(Consumer.from("orders", consumer), StreamReadOptions.empty().noack().count(1),
						StreamOffset.create(key, ReadOffset.lastConsumed()));
		}
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.redis.opsForStream()
				.consumers(key, "orders")
				.stream()
				.allMatch((consumer) -> consumer.idleTimeMs() > visibility.toMillis()));
		assertThat(this.support.template.leaveGroup(queue)).isTrue();
		assertThat(this.redis.opsForStream().consumers(key, "orders").stream().map(XInfoConsumer::consumerName))
			.as("the application's reader stays, the consumer of a Redkit instance that ended leaves")
			.containsExactly("billing-1");
	}

	@Test
	void startUpRefusesAKeyThatIsNotAStreamAndAMissingGroupNamingTheProperty() {
		String key = "orders-" + UUID.randomUUID();
		this.redis.opsForValue().set(key, "not a stream");
		String notStream = register(key, "orders", "0", null, 3, Duration.ofSeconds(30));
		assertThatIllegalStateException().isThrownBy(() -> this.support.template.prepareStreamQueue(notStream))
			.withMessageContaining("redkit.queue.queues." + notStream + ".stream-key")
			.withMessageContaining("holds a string");
		String missing = "orders-" + UUID.randomUUID();
		xadd(missing, Map.of("order", "1"));
		String noGroup = "q-" + UUID.randomUUID();
		this.support.settings.put(noGroup, settings(Duration.ofSeconds(30), 3)
			.withExistingStream(new ExistingStream(missing, "x", "0", false, null)));
		assertThatIllegalStateException().isThrownBy(() -> this.support.template.prepareStreamQueue(noGroup))
			.withMessageContaining("redkit.queue.queues." + noGroup + ".group")
			.withMessageContaining("create-group=true");
		assertThatIllegalArgumentException().isThrownBy(() -> this.support.template.send(noGroup, new Email("a", 1)))
			.withMessageContaining("redkit.queue.queues." + noGroup + ".stream-key");
	}

	@Test
	void statsCountWhatTheGroupHasNotReadAsReadyWithTheAgeOfTheOldest() {
		String key = "orders-" + UUID.randomUUID();
		long minuteAgo = redisNow() - 60_000;
		this.redis.opsForStream()
			.add(StreamRecords.string(Map.of("order", "1")).withStreamKey(key).withId(RecordId.of(minuteAgo, 0)));
		xadd(key, Map.of("order", "2"));
		RecordId third = xadd(key, Map.of("order", "3"));
		xadd(key, Map.of("order", "4"));
		String queue = queue(key, "0", null, 3);
		QueueStats before = this.support.template.stats(queue);
		assertThat(before.ready()).as("%s", before).isEqualTo(4);
		assertThat(before.inFlight()).isZero();
		assertThat(before.oldestAge()).isBetween(Duration.ofSeconds(59), Duration.ofMinutes(5));
		QueueMessage<Map> taken = this.support.template.receive(queue, Map.class).orElseThrow();
		// an entry deleted past the group's position: Redis 7 no longer knows the lag
		this.redis.opsForStream().delete(key, third);
		QueueStats after = this.support.template.stats(queue);
		assertThat(after.ready()).as("%s", after).isEqualTo(2);
		assertThat(after.inFlight()).isOne();
		assertThat(after.oldestAge()).isLessThan(Duration.ofSeconds(59));
		assertThat(this.support.template.ack(taken)).isTrue();
	}

	@Test
	void aPurgeDeletesTheQueuesDeadLettersAndLeavesTheStreamAlone() {
		String key = "orders-" + UUID.randomUUID();
		xadd(key, Map.of("order", "1"));
		String queue = queue(key, "0", null, 1);
		QueueMessage<Map> taken = this.support.template.receive(queue, Map.class).orElseThrow();
		assertThat(this.support.template.fail(taken, new IllegalStateException("no stock")))
			.isEqualTo(FailureOutcome.DEAD_LETTERED);
		assertThat(this.support.template.stats(queue).deadLetters()).isOne();
		try (RedisConnection connection = this.topology.connectionFactory().getConnection()) {
			QueuePurge.purge(connection, QueueKeys.of(QueueTestSupport.KEYSPACE, queue, this.support.settings(queue)));
		}
		assertThat(this.support.template.deadLetters(queue, 10)).isEmpty();
		assertThat(this.support.template.stats(queue).deadLetters()).isZero();
		assertThat(this.redis.opsForStream().size(key)).as("the stream is the other application's").isOne();
	}

	long redisNow() {
		Long now = this.redis.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
		return (now != null) ? now : 0;
	}

	@Test
	void redkitsKeysOfTheQueueShareTheStreamsSlot() {
		assertThat(QueueKeys.hashTag("orders")).isEqualTo("orders");
		assertThat(QueueKeys.hashTag("app:{tenant1}:orders")).isEqualTo("tenant1");
		assertThat(QueueKeys.hashTag("a{b")).isEqualTo("a{b");
		assertThatIllegalArgumentException().isThrownBy(() -> QueueKeys.hashTag("a{}b"));
		assertThatIllegalArgumentException().isThrownBy(() -> QueueKeys.hashTag("a}b"));
		QueueSettings settings = settings(Duration.ofSeconds(30), 3)
			.withExistingStream(new ExistingStream("app:{tenant1}:orders", "g", "0", true, null));
		QueueKeys keys = QueueKeys.of(QueueTestSupport.KEYSPACE, "billing", settings);
		assertThat(keys.stream()).isEqualTo("app:{tenant1}:orders");
		assertThat(keys.dead()).isEqualTo("redkit-test:queue:{tenant1}:existing:billing:dead");
	}

	private String queue(String key, String startFrom, @Nullable String payloadField, int maxAttempts) {
		return queue(key, "orders", startFrom, payloadField, maxAttempts, Duration.ofSeconds(30));
	}

	private String queue(String key, String group, String startFrom, @Nullable String payloadField, int maxAttempts,
			Duration visibility) {
		String name = register(key, group, startFrom, payloadField, maxAttempts, visibility);
		this.support.template.prepareStreamQueue(name);
		return name;
	}

	private String register(String key, String group, String startFrom, @Nullable String payloadField, int maxAttempts,
			Duration visibility) {
		String name = "q-" + UUID.randomUUID();
		this.support.settings.put(name, settings(visibility, maxAttempts)
			.withExistingStream(new ExistingStream(key, group, startFrom, true, payloadField)));
		return name;
	}

	private static QueueSettings settings(Duration visibility, int maxAttempts) {
		return new QueueSettings(QueueOrder.FIFO, visibility, maxAttempts,
				new BackoffPolicy(Duration.ofMillis(1), 1.0, Duration.ofMillis(1), 0), true, Duration.ofHours(1),
				CollapsePolicy.NONE);
	}

	private DefaultQueueListenerContainer start(String queue, QueueMessageHandler handler) {
		DefaultQueueListenerContainer container = this.support.container(queue, 1, handler, Duration.ofSeconds(5));
		this.containers.add(container);
		container.start();
		return container;
	}

	private RecordId xadd(String key, Map<String, String> fields) {
		RecordId id = this.redis.opsForStream().add(key, fields);
		assertThat(id).isNotNull();
		return id;
	}

	private long pending(String key) {
		return pending(key, "orders");
	}

	private long pending(String key, String group) {
		return this.redis.opsForStream().pending(key, group, Range.unbounded(), 100).size();
	}

	static final class Listener {

		private final List<QueueMessage<?>> received;

		Listener(List<QueueMessage<?>> received) {
			this.received = received;
		}

		void onEmail(QueueMessage<Email> message) {
			this.received.add(message);
		}

	}

}
