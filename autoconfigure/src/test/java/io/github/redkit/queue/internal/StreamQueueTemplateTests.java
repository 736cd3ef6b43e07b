package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.DeadLetter;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.internal.QueueTestSupport.Email;
import io.github.redkit.testsupport.CommandStats;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisTopologies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;

import org.springframework.data.redis.connection.stream.PendingMessages;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.domain.Range;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * {@link QueueTemplateTests} on the stream store, and what only the stream store does.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.BOTH)
class StreamQueueTemplateTests extends QueueTemplateTests {

	@Override
	QueueStore store() {
		return QueueStore.STREAM;
	}

	@Test
	void extendResetsTheTakesIdleTimeUpToTheVisibilityTimeoutAndAnswersFalseOnceAnotherConsumerTookIt() {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofMillis(400), 3,
				io.github.redkit.queue.CollapsePolicy.NONE);
		this.template.send(queue, new Email("a", 1));
		QueueMessage<Email> taken = this.template.receive(queue, Email.class).orElseThrow();
		assertThatIllegalArgumentException().isThrownBy(() -> this.template.extend(taken, Duration.ofSeconds(30)))
			.withMessageContaining("redkit.queue.queues." + queue + ".visibility-timeout");
		String stream = QueueKeys.of(QueueTestSupport.KEYSPACE, queue).stream();
		// kept while extended every 100 ms, well past its visibility timeout
		long until = System.nanoTime() + Duration.ofMillis(1000).toNanos();
		while (System.nanoTime() < until) {
			assertThat(this.template.extend(taken, Duration.ofMillis(400))).isTrue();
			assertThat(this.template.receive(queue, Email.class)).isEmpty();
			await().pollDelay(Duration.ofMillis(100)).until(() -> true);
		}
		PendingMessages pending = this.redis.opsForStream()
			.pending(stream, StreamQueueStore.GROUP, Range.unbounded(), 10);
		assertThat(pending).singleElement()
			.satisfies((entry) -> assertThat(entry.getTotalDeliveryCount()).as("extending counts no delivery").isOne());
		QueueMessage<Email> again = await().atMost(Duration.ofSeconds(5))
			.until(() -> this.template.receive(queue, Email.class), Optional::isPresent)
			.get();
		assertThat(again.id()).isEqualTo(taken.id());
		assertThat(again.deliveries()).isEqualTo(2);
		assertThat(this.template.extend(taken, Duration.ofMillis(400))).as("lost to the second take").isFalse();
		assertThat(this.template.extend(again, Duration.ofMillis(400))).isTrue();
		assertThat(this.template.ack(again)).isTrue();
		assertThat(this.template.extend(again, Duration.ofMillis(400))).as("settled").isFalse();
		assertThat(this.redis.opsForStream().size(stream)).as("acknowledged entries are deleted").isZero();
	}

	@Test
	void anExpiredTakeBehindMoreHeldTakesThanOneClaimScansIsDeliveredAgain() {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(30), 3,
				io.github.redkit.queue.CollapsePolicy.NONE);
		this.template.sendAll(queue, IntStream.range(0, 12).mapToObj((i) -> new Email("x", i)).toList());
		List<QueueMessage<Email>> held = this.template.receive(queue, Email.class, 12);
		assertThat(held).hasSize(12);
		QueueMessage<Email> abandoned = held.remove(11);
		// the eleven older takes stay held (fresh, well within their visibility timeout);
		// the newest is abandoned (its expiry set with Redis' own idle time, not waited
		// for): one take of one message scans ten pending entries, so takes must go on
		// from where the last one stopped to find it
		this.support.expire(abandoned);
		List<Optional<QueueMessage<Email>>> takes = new ArrayList<>();
		QueueMessage<Email> again = await().atMost(Duration.ofSeconds(5)).until(() -> {
			takes.add(this.template.receive(queue, Email.class));
			return takes.get(takes.size() - 1);
		}, Optional::isPresent).get();
		assertThat(again.id()).isEqualTo(abandoned.id());
		assertThat(again.deliveries()).isEqualTo(2);
		assertThat(takes).as("found within two takes, one scan each").hasSizeLessThanOrEqualTo(2);
		held.forEach((message) -> assertThat(this.template.ack(message)).as("the held takes are untouched").isTrue());
	}

	@Test
	void aRetryWithoutBackoffIsTakenBeforeNewMessagesWhileTheClaimGateIsClosed() {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(60), 3,
				io.github.redkit.queue.CollapsePolicy.NONE, Duration.ZERO);
		this.template.sendAll(queue, List.of(new Email("a", 1), new Email("b", 2)));
		// the first take scans the pending entries to their end: no take scans again for
		// a tenth of the visibility timeout (6 s), unless a retry opens the scan
		QueueMessage<Email> failed = this.template.receive(queue, Email.class).orElseThrow();
		assertThat(this.template.fail(failed, new IllegalStateException("boom"))).isEqualTo(FailureOutcome.RETRIED);
		QueueMessage<Email> again = this.template.receive(queue, Email.class).orElseThrow();
		assertThat(again.id()).as("the retry, claimable at once, before the new message").isEqualTo(failed.id());
		assertThat(again.deliveries()).isEqualTo(2);
	}

	@Test
	void aRetryIsTakenBeforeNewMessagesOnceItsBackoffPassedWhileTheClaimGateIsClosed() {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(60), 3,
				io.github.redkit.queue.CollapsePolicy.NONE, Duration.ofMillis(300));
		this.template.sendAll(queue, List.of(new Email("a", 1), new Email("b", 2), new Email("c", 3)));
		QueueMessage<Email> failed = this.template.receive(queue, Email.class).orElseThrow();
		assertThat(this.template.fail(failed, new IllegalStateException("boom"))).isEqualTo(FailureOutcome.RETRIED);
		// Redis' own idle time says when the backoff passed: the retry is then claimable,
		// and the gate (closed for 6 s by the first take) must not hold it back
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> this.redis.opsForStream()
				.pending(QueueKeys.of(QueueTestSupport.KEYSPACE, queue).stream(), StreamQueueStore.GROUP,
						Range.unbounded(), 1)
				.get(0)
				.getElapsedTimeSinceLastDelivery()
				.toMillis() >= 60_000);
		QueueMessage<Email> again = this.template.receive(queue, Email.class).orElseThrow();
		assertThat(again.id()).as("the retry, claimable since its backoff passed, before the new messages")
			.isEqualTo(failed.id());
		assertThat(again.deliveries()).isEqualTo(2);
	}

	@Test
	void theClaimGateClosesNoLongerThanUntilTheRetryItWaitsForIsClaimable() {
		// a backoff nothing here waits for: the retry stays due after each step
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(60), 3,
				io.github.redkit.queue.CollapsePolicy.NONE, Duration.ofSeconds(5));
		this.template.send(queue, new Email("a", 1));
		QueueMessage<Email> failed = this.template.receive(queue, Email.class).orElseThrow();
		assertThat(this.template.fail(failed, new IllegalStateException("boom"))).isEqualTo(FailureOutcome.RETRIED);
		// the retry opened the gate for its backoff; a key lives through the very ms its
		// expiry names, and the retry is claimable from the ms its idle time reaches the
		// visibility timeout: a take at that ms must find the gate open, not read past it
		assertThat(gateAgainstRetry(queue)).as("the gate the retry shortened lives to before its claimable ms")
			.isLessThan(60_000);
		// a take with nothing new to read scans to the end and closes the gate until the
		// retry is due
		assertThat(this.template.receive(queue, Email.class)).isEmpty();
		assertThat(gateAgainstRetry(queue)).as("the gate a pass closed lives to before the retry's claimable ms")
			.isLessThan(60_000);
	}

	/**
	 * The ms the claim gate still lives (its PTTL) plus the retry's idle time: below the
	 * visibility timeout when the gate is gone by the ms the retry becomes claimable.
	 * Redis 6.2 and 7.0 read each command's time from the clock as it runs, so the idle
	 * time may be read a ms after the time to live: the least of a few reads is the sum
	 * on one instant.
	 */
	private long gateAgainstRetry(String queue) {
		QueueKeys keys = QueueKeys.of(QueueTestSupport.KEYSPACE, queue);
		RedisScript<Long> read = RedisScript.of("""
				local ttl = redis.call('PTTL', KEYS[1])
				local idle = redis.call('XPENDING', KEYS[2], ARGV[1], '-', '+', 1)[1][3]
				if ttl < 0 then return -1 end
				return ttl + idle""", Long.class);
		long least = Long.MAX_VALUE;
		for (int i = 0; i < 5; i++) {
			Long sum = this.redis.execute(read, List.of(keys.claimCursor(), keys.stream()), StreamQueueStore.GROUP);
			assertThat(sum).as("the gate is closed").isNotNull().isNotNegative();
			least = Math.min(least, sum);
		}
		return least;
	}

	@Test
	void ackAndReceiveWithTheClaimGateClosedIsEightCommands() {
		String queue = this.support.queue();
		this.template.sendAll(queue, IntStream.range(0, 20).mapToObj((i) -> new Email("x", i)).toList());
		// the first take scans the pending entries to their end: no take scans again for
		// a tenth of the visibility timeout (3 s)
		QueueMessage<Email> done = this.template.receive(queue, Email.class).orElseThrow();
		CommandStats used = unscannedCall(() -> List.of(this.template.ackAndReceive(done, Email.class).orElseThrow()));
		assertEightCommands(used);
	}

	@Test
	void ackAndReceiveOfABatchOfFiftyIsEightCommands() {
		String queue = this.support.queue();
		this.template.sendAll(queue, IntStream.range(0, 250).mapToObj((i) -> new Email("x", i)).toList());
		List<List<QueueMessage<Email>>> done = new ArrayList<>(List.of(this.template.receive(queue, Email.class, 50)));
		int[] settled = { 0 };
		// the batch is settled with one XPENDING and one XRANGE over its range, one XACK
		// and one XDEL
		CommandStats used = unscannedCall(() -> {
			List<QueueMessage<Email>> next = this.template.ackAndReceive(done.get(0), queue, Email.class, 50);
			assertThat(next).hasSize(50);
			done.set(0, next);
			settled[0] += 50;
			return next;
		});
		assertEightCommands(used);
		assertThat(this.template.stats(queue).inFlight()).as("only the last batch held").isEqualTo(50);
		assertThat(this.redis.opsForStream().size(QueueKeys.of(QueueTestSupport.KEYSPACE, queue).stream()))
			.as("the acknowledged batches deleted")
			.isEqualTo(250 - settled[0]);
	}

	/**
	 * The commands of the first of a few calls that ran no claim scan (one on a loaded
	 * machine may come after the gate opened again).
	 */
	private CommandStats unscannedCall(Supplier<List<QueueMessage<Email>>> call) {
		RedisServer server = this.topology.server();
		for (int attempt = 0; attempt < 3; attempt++) {
			CommandStats before = server.commandStats();
			call.get();
			CommandStats after = server.commandStats().since(before).without(server.backgroundCommands());
			// Redis 6.2 claims with XPENDING and XCLAIM (queue_stream_claim.lua): one
			// XPENDING more than the settling one
			if (after.calls("xautoclaim") == 0 && after.calls("xpending") <= 1) {
				return after;
			}
		}
		throw new AssertionError("every call scanned the pending entries");
	}

	/**
	 * INFO commandstats also counts the commands the script ran; a PING is another
	 * client's (a new pooled connection's). The take's record and the claim cursor are
	 * read in one MGET; the record (a replay answers the same batch) is one SET; the
	 * settled takes' elements (is each entry still the message taken?) one XRANGE.
	 */
	private static void assertEightCommands(CommandStats used) {
		Map<String, Long> settle = (used.calls("xackdel") > 0) ? Map.of("xackdel", 1L, "xpending", 1L)
				: Map.of("xack", 1L, "xdel", 1L);
		assertThat(used.asMap()).as(used.toString())
			.containsAllEntriesOf(
					Map.of("evalsha", 1L, "mget", 1L, "xpending", 1L, "xrange", 1L, "xreadgroup", 1L, "set", 1L))
			.containsAllEntriesOf(settle);
		assertThat(used.total() - used.calls("ping")).as(used.toString()).isEqualTo((settle.size() == 2) ? 8 : 7);
	}

	@Test
	void anExtendAndARetryReadTheirEntryOnce() {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(30), 3,
				io.github.redkit.queue.CollapsePolicy.NONE);
		this.template.send(queue, new Email("a", 1));
		QueueMessage<Email> taken = this.template.receive(queue, Email.class).orElseThrow();
		// the entry is read once for both questions: does it still hold the message
		// taken, and is it still in the stream (not trimmed)?
		RedisServer server = this.topology.server();
		CommandStats before = server.commandStats();
		assertThat(this.template.extend(taken, Duration.ofSeconds(30))).isTrue();
		CommandStats extend = server.commandStats().since(before).without(server.backgroundCommands());
		assertThat(extend.calls("xrange")).as(extend.toString()).isOne();
		before = server.commandStats();
		assertThat(this.template.fail(taken, new IllegalStateException("boom"))).isEqualTo(FailureOutcome.RETRIED);
		CommandStats retry = server.commandStats().since(before).without(server.backgroundCommands());
		assertThat(retry.calls("xrange")).as(retry.toString()).isOne();
	}

	@Test
	void aDelayedSendIsRefusedNamingTheStore() {
		String queue = this.support.queue();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.template.sendDelayed(queue, new Email("a", 1), Duration.ofSeconds(1)))
			.withMessageContaining("redkit.queue.queues." + queue + ".store=stream");
		assertThat(this.template.sendDelayedAsync(queue, new Email("a", 1), Duration.ofSeconds(1)))
			.isCompletedExceptionally();
		assertThat(this.template.stats(queue)).isEqualTo(new QueueStats(0, 0, 0, 0, Duration.ZERO));
	}

	@Test
	void anEntryRedkitDidNotWriteIsDeadLetteredAtOnceAndTheRestOfItsBatchIsHandedOut() {
		String queue = this.support.queue();
		String stream = QueueKeys.of(QueueTestSupport.KEYSPACE, queue).stream();
		this.template.send(queue, new Email("a", 1));
		this.redis.opsForStream().add(StreamRecords.string(Map.of("other", "field")).withStreamKey(stream));
		this.redis.opsForStream().add(StreamRecords.string(Map.of("e", "garbage")).withStreamKey(stream));
		this.template.send(queue, new Email("b", 2));
		List<QueueMessage<Email>> batch = this.template.receive(queue, Email.class, 10);
		assertThat(batch).extracting((message) -> message.payload().number()).containsExactly(1, 2);
		List<DeadLetter> dead = this.template.deadLetters(queue, 10);
		assertThat(dead).extracting(DeadLetter::payloadJson).containsExactlyInAnyOrder("other field", "garbage");
		assertThat(dead).allSatisfy((letter) -> assertThat(letter.error()).contains("Not a Redkit queue element"));
		batch.forEach(this.template::ack);
		assertThat(this.template.stats(queue)).isEqualTo(new QueueStats(0, 0, 0, 2, Duration.ZERO));
	}

	@Test
	void aSendTheClientSendsAgainIsAppliedOnce() {
		String queue = this.support.queue();
		QueueKeys keys = QueueKeys.of(QueueTestSupport.KEYSPACE, queue);
		StreamQueueStore store = new StreamQueueStore(new RedisScriptRunner(this.topology.connectionFactory()),
				"120000", QueueTestSupport.JSON);
		List<Envelope> envelopes = List.of(Envelope.create("{\"to\":\"a\",\"number\":1}"),
				Envelope.create("{\"to\":\"b\",\"number\":2}"));
		assertThat(store.push(keys, this.support.settings(queue), envelopes).join()).isEqualTo(2);
		assertThat(store.push(keys, this.support.settings(queue), envelopes).join()).as("the copy").isEqualTo(2);
		assertThat(drain(queue)).containsExactly(1, 2);
	}

	@Test
	void aSendTrimsTheStreamToTheConfiguredLength() {
		String queue = this.support.queue();
		this.support.settings.put(queue, this.support.settings(queue).withStore(QueueStore.STREAM, 10));
		this.template.sendAll(queue, IntStream.range(0, 1000).mapToObj((i) -> new Email("x", i)).toList());
		String stream = QueueKeys.of(QueueTestSupport.KEYSPACE, queue).stream();
		// MAXLEN ~ trims whole nodes of the stream: about the length, never below it
		assertThat(this.redis.opsForStream().size(stream)).isBetween(10L, 300L);
	}

}
