package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.CollapsePolicy;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.ReactiveQueueTemplate;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.NonBlockingThreads;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The reactive face sends and takes like the blocking one, takes no more than its
 * subscriber requested, and never blocks a non-blocking thread (BlockHound watches).
 */
@Tag("tests-apart")
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class ReactiveQueueTemplateTests {

	@Parameter
	RedisTopology topology;

	private QueueTestSupport support;

	private ReactiveQueueTemplate reactive;

	@BeforeAll
	static void watchForBlocking() {
		NonBlockingThreads.watch();
	}

	/**
	 * The store the queues of this suite are kept in; the stream store's run is
	 * {@link StreamReactiveQueueTemplateTests}.
	 */
	QueueStore store() {
		return QueueStore.LIST;
	}

	@BeforeEach
	void createTemplates() {
		this.support = new QueueTestSupport(this.topology, store());
		this.reactive = new DefaultReactiveQueueTemplate(this.support.template, Duration.ofMillis(5),
				Duration.ofMillis(50));
		// the first connection is made off the caller's thread; make it before the checks
		this.support.template.size(this.support.queue());
	}

	private long inFlight(String queue) {
		if (store() == QueueStore.STREAM) {
			return this.support.template.stats(queue).inFlight();
		}
		StringRedisTemplate redis = new StringRedisTemplate(this.topology.connectionFactory());
		Long count = redis.opsForZSet().zCard(QueueKeys.of(QueueTestSupport.KEYSPACE, queue).inFlight());
		return (count != null) ? count : 0;
	}

	@Test
	void sendsFromNonBlockingThreadsWithTheBlockingSendsOptions() {
		assumeTrue(store() == QueueStore.LIST, "a list store feature");
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofSeconds(30), 3, CollapsePolicy.FIRST_WINS);
		this.reactive.send(queue, "a").subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(10));
		assertThat(this.support.template.size(queue)).isEqualTo(1);
		assertThat(this.reactive.sendDelayed(queue, "b", Duration.ofMillis(50))
			.subscribeOn(Schedulers.parallel())
			.block(Duration.ofSeconds(10))).isTrue();
		assertThat(this.reactive.sendDelayed(queue, "b", Duration.ofMillis(50))
			.subscribeOn(Schedulers.parallel())
			.block(Duration.ofSeconds(10))).as("collapsed").isFalse();
		List<String> payloads = this.reactive.receive(queue, String.class)
			.take(2)
			.concatMap((message) -> this.reactive.ack(message).thenReturn(message.payload()))
			.collectList()
			.block(Duration.ofSeconds(10));
		assertThat(payloads).containsExactly("a", "b");
		assertThat(this.support.template.stats(queue).inFlight()).isZero();
	}

	@Test
	void anEmptyElementIsDeadLetteredAndTheRestOfItsTakeIsHandedOut() {
		assumeTrue(store() == QueueStore.LIST, "a list store feature");
		String queue = this.support.queue();
		StringRedisTemplate redis = new StringRedisTemplate(this.topology.connectionFactory());
		redis.opsForList().rightPush(QueueKeys.of(QueueTestSupport.KEYSPACE, queue).ready(), "");
		this.support.template.sendAll(queue, List.of("a", "b"));
		List<String> payloads = this.reactive.receive(queue, String.class)
			.take(2)
			.concatMap((message) -> this.reactive.ack(message).thenReturn(message.payload()))
			.collectList()
			.block(Duration.ofSeconds(10));
		assertThat(payloads).containsExactly("a", "b");
		assertThat(this.support.template.deadLetters(queue, 10)).singleElement()
			.satisfies((letter) -> assertThat(letter.id()).startsWith("unreadable."));
		assertThat(this.support.template.stats(queue)).isEqualTo(new QueueStats(0, 0, 0, 1, Duration.ZERO));
	}

	@Test
	void aSlowSubscriberRequestingOneAtATimeHasNeverMoreThanOneInFlight() throws Exception {
		String queue = this.support.queue();
		for (int i = 0; i < 20; i++) {
			this.support.template.send(queue, i);
		}
		List<Integer> received = new CopyOnWriteArrayList<>();
		AtomicLong mostInFlight = new AtomicLong();
		AtomicLong acks = new AtomicLong();
		BaseSubscriber<QueueMessage<Integer>> slow = new BaseSubscriber<>() {

			@Override
			protected void hookOnSubscribe(Subscription subscription) {
				request(1);
			}

			@Override
			protected void hookOnNext(QueueMessage<Integer> message) {
				received.add(message.payload());
				// counts what is in flight (off this thread, which must not block),
				// settles,
				// then asks for the next one, later, from a timer
				Mono.fromFuture(CompletableFuture.supplyAsync(() -> inFlight(queue)))
					.doOnNext((count) -> mostInFlight.accumulateAndGet(count, Math::max))
					.then(ReactiveQueueTemplateTests.this.reactive.ack(message))
					.delayElement(Duration.ofMillis(5))
					.subscribe((acked) -> {
						acks.incrementAndGet();
						request(1);
					});
			}

		};
		this.reactive.receive(queue, Integer.class).subscribeOn(Schedulers.parallel()).subscribe(slow);
		try {
			// the last ack answered too: a stream queue's size read while it lands could
			// count its entry as ready (the length and the pending count are two reads)
			await().atMost(Duration.ofSeconds(20)).until(() -> received.size() == 20 && acks.get() == 20);
		}
		finally {
			slow.dispose();
		}
		assertThat(received).containsExactlyElementsOf(IntStream.range(0, 20).boxed().toList());
		assertThat(mostInFlight.get()).as("taken on Redis' side, never more than requested").isEqualTo(1);
		assertThat(this.support.template.size(queue)).isZero();
	}

	@Test
	void aFailedMessageIsDeliveredAgainAndADeadLetterLeaves() {
		String queue = this.support.queue();
		this.support.template.send(queue, "x");
		List<Integer> deliveries = this.reactive.receive(queue, String.class)
			.take(2)
			.concatMap((message) -> ((message.deliveries() == 1)
					? this.reactive.fail(message, new IllegalStateException("first time"))
					: this.reactive.deadLetter(message, new IllegalStateException("enough")))
				.thenReturn(message.deliveries()))
			.collectList()
			.block(Duration.ofSeconds(10));
		assertThat(deliveries).containsExactly(1, 2);
		assertThat(this.support.template.deadLetters(queue, 10)).singleElement()
			.satisfies((letter) -> assertThat(letter.error()).contains("enough"));
	}

	@Test
	void cancellingStopsTakingAndATakenMessageReturnsAfterItsVisibilityTimeout() {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofMillis(300), 3, CollapsePolicy.NONE);
		List<QueueMessage<String>> received = new CopyOnWriteArrayList<>();
		Disposable subscription = this.reactive.receive(queue, String.class)
			.subscribeOn(Schedulers.parallel())
			.subscribe(received::add);
		this.support.template.send(queue, "taken");
		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);
		subscription.dispose();
		this.support.template.send(queue, "left");
		// the cancelled consumer takes nothing more: "left" stays for the next taker,
		// while "taken", never acknowledged, comes back after its visibility timeout
		List<QueueMessage<String>> after = new CopyOnWriteArrayList<>();
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			after.addAll(this.support.template.receive(queue, String.class, 2));
			return after.size() == 2;
		});
		assertThat(received).hasSize(1);
		assertThat(after).extracting(QueueMessage::payload).containsExactlyInAnyOrder("left", "taken");
		assertThat(after).filteredOn((message) -> message.payload().equals("taken"))
			.singleElement()
			.satisfies((message) -> assertThat(message.deliveries()).isEqualTo(2));
	}

	@Test
	void extendKeepsATakenMessageAndAnswersFalseOnceItWasTakenAgain() {
		String queue = this.support.queue(QueueOrder.FIFO, Duration.ofMillis(300), 3, CollapsePolicy.NONE);
		this.support.template.send(queue, "x");
		QueueMessage<String> taken = this.reactive.receive(queue, String.class).blockFirst(Duration.ofSeconds(10));
		assertThat(taken).isNotNull();
		assertThat(this.reactive.extend(taken, Duration.ofMillis(300)).block(Duration.ofSeconds(5))).isTrue();
		QueueMessage<String> again = this.reactive.receive(queue, String.class).blockFirst(Duration.ofSeconds(10));
		assertThat(again).isNotNull();
		assertThat(again.deliveries()).isEqualTo(2);
		// no longer than the visibility timeout: the most a stream queue's take can get
		assertThat(this.reactive.extend(taken, Duration.ofMillis(300)).block(Duration.ofSeconds(5))).isFalse();
		assertThat(this.reactive.extend(again, Duration.ofMillis(300)).block(Duration.ofSeconds(5))).isTrue();
		assertThat(this.reactive.ack(taken).block(Duration.ofSeconds(5))).isFalse();
		assertThat(this.reactive.ack(again).block(Duration.ofSeconds(5))).isTrue();
	}

	@Test
	void aPollThatCannotBeScheduledEndsTheSubscriptionWithTheRejection() {
		Scheduler stopped = Schedulers.newSingle("stopped-queue-timers");
		stopped.dispose();
		ReactiveQueueTemplate reactive = new DefaultReactiveQueueTemplate(this.support.template, Duration.ofMillis(5),
				Duration.ofMillis(50), stopped);
		String queue = this.support.queue();
		// an empty queue: the next poll is scheduled, and the scheduler refuses it
		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> reactive.receive(queue, String.class).blockFirst(Duration.ofSeconds(10)));
		this.support.template.send(queue, "after");
		assertThat(inFlight(queue)).as("the ended subscription takes nothing").isZero();
		assertThat(this.support.template.size(queue)).isOne();
	}

	@Test
	void anUnreachableRedisIsTheBlockingFacesExceptionAsAnError() {
		LettuceConnectionFactory unreachable = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", 1),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofMillis(500)).build());
		unreachable.afterPropertiesSet();
		unreachable.start();
		try {
			RedisQueueTemplate template = new RedisQueueTemplate(new RedisScriptRunner(unreachable),
					QueueTestSupport.KEYSPACE, QueueTestSupport.JSON, this.support::settings, RedkitMetrics.NONE,
					RedkitObservations.NONE);
			ReactiveQueueTemplate reactive = new DefaultReactiveQueueTemplate(template);
			String queue = this.support.queue();
			Class<? extends DataAccessException> blocking = assertThatExceptionOfType(DataAccessException.class)
				.isThrownBy(() -> template.send(queue, "x"))
				.actual()
				.getClass();
			assertThatExceptionOfType(blocking).isThrownBy(
					() -> reactive.send(queue, "x").subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(10)));
			assertThatExceptionOfType(blocking).isThrownBy(() -> reactive.receive(queue, String.class)
				.subscribeOn(Schedulers.parallel())
				.blockFirst(Duration.ofSeconds(10)));
		}
		finally {
			unreachable.destroy();
		}
	}

}
