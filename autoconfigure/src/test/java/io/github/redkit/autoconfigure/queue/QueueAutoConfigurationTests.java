package io.github.redkit.autoconfigure.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;

import io.github.redkit.autoconfigure.RedkitAutoConfiguration;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.BackoffPolicy;
import io.github.redkit.queue.CollapsePolicy;
import io.github.redkit.queue.DeadLetter;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueListener;
import io.github.redkit.queue.QueueListenerRegistry;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueOrder;
import io.github.redkit.queue.QueueSettings;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueTemplate;
import io.github.redkit.queue.internal.RedisQueueTemplate;
import io.github.redkit.testsupport.PrivateRedis;
import io.github.redkit.testsupport.RedisServer;
import io.github.redkit.testsupport.RedisServers;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class QueueAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedkitAutoConfiguration.class,
				QueueAutoConfiguration.class, AopAutoConfiguration.class))
		.withPropertyValues(RedisServers.standalone().springProperties())
		.withPropertyValues("redkit.key-prefix=redkit-test-" + UUID.randomUUID(), "redkit.queue.poll-timeout=100ms");

	@Test
	void providesTheTemplateAndTheListenerRegistry() {
		this.runner.run((context) -> assertThat(context).hasSingleBean(RedisQueueTemplate.class)
			.hasSingleBean(QueueListenerRegistry.class));
	}

	@Test
	void canBeDisabled() {
		this.runner.withPropertyValues("redkit.queue.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(QueueTemplate.class)
				.doesNotHaveBean(QueueListenerRegistry.class));
	}

	@Test
	void theTemplateCanBeReplaced() {
		this.runner.withUserConfiguration(CustomTemplate.class)
			.run((context) -> assertThat(context).hasSingleBean(QueueTemplate.class)
				.doesNotHaveBean(RedisQueueTemplate.class)
				.hasBean("customQueueTemplate"));
	}

	@Test
	void aStreamQueueWithASettingTheStreamStoreCannotHonourFailsStartUpNamingIt() {
		this.runner.withPropertyValues("redkit.queue.queues.jobs.store=stream", "redkit.queue.queues.jobs.order=lifo")
			.run((context) -> assertThat(context.getStartupFailure()).hasStackTraceContaining(
					"redkit.queue.queues.jobs.order=lifo cannot be honoured by the stream store (redkit.queue.queues.jobs.store=stream)"));
		this.runner
			.withPropertyValues("redkit.queue.queues.jobs.store=stream", "redkit.queue.queues.jobs.collapse=first-wins")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.queue.queues.jobs.collapse=first-wins cannot be honoured"));
		this.runner
			.withPropertyValues("redkit.queue.defaults.store=stream", "redkit.queue.defaults.backoff.delay=20s",
					"redkit.queue.defaults.visibility-timeout=30s")
			.run((context) -> assertThat(context.getStartupFailure()).hasStackTraceContaining(
					"redkit.queue.defaults.backoff.max-delay cannot be honoured by the stream store"));
		this.runner.withPropertyValues("redkit.queue.queues.jobs.max-length=100")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.queue.queues.jobs.max-length is honoured by the stream store only"));
		// the defaults otherwise (5 attempts: at most 8 s of backoff, 9.6 s with jitter)
		this.runner
			.withPropertyValues("redkit.queue.queues.jobs.store=stream", "redkit.queue.queues.jobs.max-length=1000")
			.run((context) -> assertThat(context).hasNotFailed().getBean(RedisQueueTemplate.class).isNotNull());
	}

	@Test
	void aQueueReadingAnotherApplicationsStreamIsCheckedAtStartUpNamingTheProperty() {
		String key = "events-" + UUID.randomUUID();
		String q = "redkit.queue.queues.events.";
		this.runner.withPropertyValues(q + "stream-key=" + key, q + "group=g")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining(q + "stream-key, group and payload-field need " + q + "store=stream"));
		this.runner.withPropertyValues(q + "store=stream", q + "stream-key=" + key)
			.run((context) -> assertThat(context.getStartupFailure()).hasStackTraceContaining(q + "group must be set"));
		this.runner.withPropertyValues(q + "store=stream", q + "stream-key=" + key, q + "group=g", q + "max-length=10")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining(q + "max-length cannot be honoured"));
		this.runner.withPropertyValues(q + "store=stream", q + "stream-key=" + key, q + "group=g", q + "start-from=x")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining(q + "start-from must be 0, $ or an entry id"));
		this.runner.withPropertyValues(q + "store=stream", q + "stream-key=a{}b", q + "group=g")
			.run((context) -> assertThat(context.getStartupFailure()).hasStackTraceContaining(q + "stream-key: "));
		this.runner.withPropertyValues("redkit.queue.defaults.stream-key=" + key)
			.run((context) -> assertThat(context.getStartupFailure()).hasStackTraceContaining(
					"redkit.queue.defaults.stream-key, group and payload-field are set per queue"));
		// a missing stream without create-group, checked against Redis
		this.runner.withPropertyValues(q + "store=stream", q + "stream-key=" + key, q + "group=g")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining(q + "group: stream '" + key + "' does not exist"));
		this.runner
			.withPropertyValues(q + "store=stream", q + "stream-key=" + key, q + "group=g", q + "create-group=true")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aBadQueuePropertyFailsStartUpNamingIt() {
		this.runner.withPropertyValues("redkit.queue.queues.emails.max-attempts=0")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.queue.queues.emails.max-attempts must be > 0"));
		this.runner.withPropertyValues("redkit.queue.queues.emails.backoff.jitter=2")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.queue.queues.emails.backoff.jitter must be between 0 and 1"));
		this.runner.withPropertyValues("redkit.queue.defaults.visibility-timeout=0s")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.queue.defaults.visibility-timeout must be > 0"));
		this.runner.withPropertyValues("redkit.queue.defaults.prefetch=0")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.queue.defaults.prefetch must be between 1 and 1000"));
		this.runner.withPropertyValues("redkit.queue.poll-timeout=0s")
			.run((context) -> assertThat(context.getStartupFailure())
				.hasStackTraceContaining("redkit.queue.poll-timeout must be > 0"));
	}

	@Test
	void aStreamQueuesListenerHandlesPayloadsAndMetricsAndGaugesCountThem() {
		handleEmailsAndCountThem("redkit.queue.queues.emails.store=stream", (template) -> {
		}, 2, Map.of("ready", 0, "in-flight", 0, "dead-letter", 1));
	}

	@Test
	void aListenerMethodHandlesPayloadsAndMetricsCountThem() {
		handleEmailsAndCountThem("redkit.queue.queues.emails.collapse=first-wins", (template) -> {
			assertThat(template.sendDelayed("emails", Map.of("to", "c"), Duration.ofMillis(50))).isTrue();
			// collapsed while the first is still scheduled: an hour away, so that no load
			// can make it due between the two sends (50 ms could, and did)
			assertThat(template.sendDelayed("emails", Map.of("to", "d"), Duration.ofHours(1))).isTrue();
			assertThat(template.sendDelayed("emails", Map.of("to", "d"), Duration.ofHours(1))).isFalse();
		}, 3, Map.of("ready", 0, "delayed", 1, "dead-letter", 1));
	}

	/**
	 * Sends the emails "a", "b" and "fail", then the queue's further sends, to a listener
	 * that tries each twice at most, and checks the meters once it has handled as many as
	 * expected and dead-lettered "fail".
	 * @param property the queue's own setting
	 * @param furtherSends sends after the first three
	 * @param handled how many the listener handles
	 * @param depths the expected depth gauges, by state
	 */
	private void handleEmailsAndCountThem(String property, Consumer<QueueTemplate> furtherSends, int handled,
			Map<String, Integer> depths) {
		this.runner.withUserConfiguration(Listeners.class, Metrics.class)
			.withPropertyValues(property, "redkit.queue.queues.emails.max-attempts=2",
					"redkit.queue.queues.emails.backoff.type=fixed", "redkit.queue.queues.emails.backoff.delay=10ms",
					"redkit.queue.queues.emails.prefetch=5", "listeners.concurrency=2",
					"redkit.metrics.gauge-refresh=50ms")
			.run((context) -> {
				QueueTemplate template = context.getBean(QueueTemplate.class);
				Listeners listeners = context.getBean(Listeners.class);
				template.sendAll("emails", List.of(Map.of("to", "a"), Map.of("to", "b"), Map.of("to", "fail")));
				furtherSends.accept(template);
				await().atMost(Duration.ofSeconds(10)).until(() -> listeners.received.size() == handled);
				await().atMost(Duration.ofSeconds(10)).until(() -> template.deadLetters("emails", 10).size() == 1);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				await().atMost(Duration.ofSeconds(10))
					.untilAsserted(() -> assertThat(meters.get("redkit.queue.messages")
						.tags("queue", "emails", "outcome", "processed")
						.counter()
						.count()).isEqualTo(handled));
				assertThat(meters.get("redkit.queue.messages").tags("outcome", "retried").counter().count())
					.isEqualTo(1);
				assertThat(meters.get("redkit.queue.messages").tags("outcome", "dead-lettered").counter().count())
					.isEqualTo(1);
				assertThat(meters.get("redkit.queue.processing").tags("outcome", "failure").timer().count())
					.isEqualTo(2);
				// read in the background: a scrape asks for the value a later one gets
				await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
					depths.forEach((state, depth) -> assertThat(
							meters.get("redkit.queue.depth").tags("queue", "emails", "state", state).gauge().value())
						.as(state)
						.isEqualTo(depth.doubleValue()));
					assertThat(meters.get("redkit.queue.oldest.age").gauge().value()).isZero();
				});
			});
	}

	@Test
	void aScrapeOfTheQueueGaugesReturnsAtOnceWhileRedisIsPaused(@PrivateRedis RedisServer redis) {
		this.runner.withUserConfiguration(Metrics.class)
			.withPropertyValues(redis.springProperties())
			.withPropertyValues("spring.data.redis.timeout=2s", "redkit.queue.queues.emails.max-attempts=2",
					"redkit.queue.queues.orders.max-attempts=2", "redkit.metrics.gauge-refresh=100ms")
			.run((context) -> {
				context.getBean(QueueTemplate.class).send("emails", Map.of("to", "a"));
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				await().atMost(Duration.ofSeconds(10))
					.untilAsserted(() -> assertThat(
							meters.get("redkit.queue.depth").tags("queue", "emails", "state", "ready").gauge().value())
						.isEqualTo(1));
				redis.pause();
				try {
					long start = System.nanoTime();
					for (int scrape = 0; scrape < 3; scrape++) {
						meters.find("redkit.queue.depth").gauges().forEach(Gauge::value);
						meters.find("redkit.queue.oldest.age").gauges().forEach(Gauge::value);
					}
					assertThat(Duration.ofNanos(System.nanoTime() - start)).as("three scrapes of a paused Redis")
						.isLessThan(Duration.ofMillis(200));
				}
				finally {
					redis.resume();
				}
			});
	}

	/**
	 * An application's own template, one that hands out the delegate's messages and one
	 * that hands out messages of its own kind, with one message a take and ten.
	 */
	static Stream<Arguments> applicationTemplates() {
		return Stream.of(Arguments.of(CountingTemplate.class, 1), Arguments.of(CountingTemplate.class, 10),
				Arguments.of(WrappingTemplate.class, 1), Arguments.of(WrappingTemplate.class, 10));
	}

	@ParameterizedTest(name = "{0}, prefetch {1}")
	@MethodSource("applicationTemplates")
	void listenersTakeAndSettleMessagesThroughAnApplicationProvidedTemplate(Class<?> template, int prefetch) {
		this.runner.withUserConfiguration(template, Listeners.class)
			.withPropertyValues("redkit.queue.defaults.prefetch=" + prefetch)
			.run((context) -> {
				CountingQueueTemplate counting = context.getBean(CountingQueueTemplate.class);
				Listeners listeners = context.getBean(Listeners.class);
				List<Map<String, String>> sent = List.of(Map.of("to", "a"), Map.of("to", "b"), Map.of("to", "c"));
				counting.sendAll("emails", sent);
				await().atMost(Duration.ofSeconds(10)).until(() -> listeners.received.size() == 3);
				// one consumer of a FIFO queue: in order, a batch as one at a time
				assertThat(listeners.received).containsExactlyElementsOf(sent);
				assertThat(counting.handedOut).hasValue(3);
				await().atMost(Duration.ofSeconds(5)).until(() -> counting.stats("emails").inFlight() == 0);
				assertThat(counting.deadLetters("emails", 10)).isEmpty();
				assertThat(counting.acknowledged).as("every message came back to the template to be acknowledged")
					.hasValue(3);
			});
	}

	@Test
	void stoppingTheApplicationStopsTheListeners() {
		this.runner.withUserConfiguration(Listeners.class).run((context) -> {
			QueueListenerRegistry registry = context.getBean(QueueListenerRegistry.class);
			assertThat(registry.containers()).hasSize(1).allMatch((container) -> container.isRunning());
			context.close();
			assertThat(registry.containers()).noneMatch((container) -> container.isRunning());
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		final List<Map<String, String>> received = new CopyOnWriteArrayList<>();

		@QueueListener(queue = "emails", concurrency = "${listeners.concurrency:1}")
		void onEmail(Map<String, String> email) {
			if ("fail".equals(email.get("to"))) {
				throw new IllegalStateException("cannot send");
			}
			this.received.add(email);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Metrics {

		@Bean
		SimpleMeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CountingTemplate {

		@Bean
		CountingQueueTemplate countingQueueTemplate(RedisScriptRunner runner, RedisKeyspace keyspace) {
			return new CountingQueueTemplate(delegate(runner, keyspace));
		}

	}

	/**
	 * The template an application's own delegates to.
	 */
	static RedisQueueTemplate delegate(RedisScriptRunner runner, RedisKeyspace keyspace) {
		QueueSettings settings = new QueueSettings(QueueOrder.FIFO, Duration.ofSeconds(30), 3,
				new BackoffPolicy(Duration.ofMillis(10), 1.0, Duration.ofMillis(10), 0), true, Duration.ofHours(1),
				CollapsePolicy.NONE);
		return new RedisQueueTemplate(runner, keyspace, JsonMapper.builder().build(), (name) -> settings,
				RedkitMetrics.NONE, RedkitObservations.NONE);
	}

	/**
	 * An application's own template: delegates, and counts the messages it hands out.
	 */
	static class CountingQueueTemplate implements QueueTemplate {

		final AtomicInteger handedOut = new AtomicInteger();

		/**
		 * The messages handed back to be acknowledged, alone or with a take.
		 */
		final AtomicInteger acknowledged = new AtomicInteger();

		private final QueueTemplate delegate;

		CountingQueueTemplate(QueueTemplate delegate) {
			this.delegate = delegate;
		}

		@Override
		public void send(String queue, Object payload) {
			this.delegate.send(queue, payload);
		}

		@Override
		public void sendAll(String queue, Collection<?> payloads) {
			this.delegate.sendAll(queue, payloads);
		}

		@Override
		public boolean sendDelayed(String queue, Object payload, Duration delay) {
			return this.delegate.sendDelayed(queue, payload, delay);
		}

		@Override
		public long size(String queue) {
			return this.delegate.size(queue);
		}

		@Override
		public QueueStats stats(String queue) {
			return this.delegate.stats(queue);
		}

		@Override
		public <T> Optional<QueueMessage<T>> receive(String queue, Class<T> type) {
			return count(this.delegate.receive(queue, type));
		}

		@Override
		public <T> Optional<QueueMessage<T>> ackAndReceive(QueueMessage<?> done, Class<T> type) {
			this.acknowledged.incrementAndGet();
			return count(this.delegate.ackAndReceive(done, type));
		}

		@Override
		public boolean ack(QueueMessage<?> message) {
			this.acknowledged.incrementAndGet();
			return this.delegate.ack(message);
		}

		@Override
		public boolean extend(QueueMessage<?> message, Duration visibility) {
			return this.delegate.extend(message, visibility);
		}

		@Override
		public FailureOutcome fail(QueueMessage<?> message, Throwable error) {
			return this.delegate.fail(message, error);
		}

		@Override
		public boolean release(QueueMessage<?> message) {
			return this.delegate.release(message);
		}

		@Override
		public List<DeadLetter> deadLetters(String queue, int limit) {
			return this.delegate.deadLetters(queue, limit);
		}

		@Override
		public boolean requeueDeadLetter(String queue, String id) {
			return this.delegate.requeueDeadLetter(queue, id);
		}

		@Override
		public long requeueDeadLetters(String queue) {
			return this.delegate.requeueDeadLetters(queue);
		}

		private <T> Optional<QueueMessage<T>> count(Optional<QueueMessage<T>> message) {
			message.ifPresent((taken) -> this.handedOut.incrementAndGet());
			return message;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WrappingTemplate {

		@Bean
		WrappingQueueTemplate wrappingQueueTemplate(RedisScriptRunner runner, RedisKeyspace keyspace) {
			return new WrappingQueueTemplate(delegate(runner, keyspace));
		}

	}

	/**
	 * An application's own template that hands out messages of its own kind, each
	 * wrapping the delegate's, and unwraps them when they come back.
	 */
	static class WrappingQueueTemplate extends CountingQueueTemplate {

		final AtomicInteger unwrapped = new AtomicInteger();

		WrappingQueueTemplate(QueueTemplate delegate) {
			super(delegate);
		}

		@Override
		public <T> Optional<QueueMessage<T>> receive(String queue, Class<T> type) {
			return super.receive(queue, type).map(AppMessage::new);
		}

		@Override
		public <T> Optional<QueueMessage<T>> ackAndReceive(QueueMessage<?> done, Class<T> type) {
			return super.ackAndReceive(unwrap(done), type).map(AppMessage::new);
		}

		@Override
		public boolean ack(QueueMessage<?> message) {
			return super.ack(unwrap(message));
		}

		@Override
		public boolean extend(QueueMessage<?> message, Duration visibility) {
			return super.extend(unwrap(message), visibility);
		}

		@Override
		public FailureOutcome fail(QueueMessage<?> message, Throwable error) {
			return super.fail(unwrap(message), error);
		}

		@Override
		public boolean release(QueueMessage<?> message) {
			return super.release(unwrap(message));
		}

		private QueueMessage<?> unwrap(QueueMessage<?> message) {
			if (message instanceof AppMessage<?> own) {
				this.unwrapped.incrementAndGet();
				return own.taken();
			}
			throw new IllegalArgumentException("Not a message of this template: " + message);
		}

	}

	record AppMessage<T>(QueueMessage<T> taken) implements QueueMessage<T> {

		@Override
		public String queue() {
			return this.taken.queue();
		}

		@Override
		public String id() {
			return this.taken.id();
		}

		@Override
		public Map<String, String> headers() {
			return this.taken.headers();
		}

		@Override
		public int deliveries() {
			return this.taken.deliveries();
		}

		@Override
		public Instant sentAt() {
			return this.taken.sentAt();
		}

		@Override
		public T payload() {
			return this.taken.payload();
		}

	}

	@Test
	void theStartUpCheckReadsTheServerForQueuesThatAreStreamsOnlyThroughTheDefaults() {
		// no queue named: a listener's or a template's queue is a stream through the
		// defaults alone, and a server older than 6.2 must fail start-up all the same
		this.runner.withUserConfiguration(CheckedTemplate.class)
			.withPropertyValues("redkit.queue.defaults.store=stream")
			.run((context) -> assertThat(context.getBean(CheckedTemplate.class).checked)
				.containsExactly("redkit.queue.defaults.store=stream"));
		this.runner.withUserConfiguration(CheckedTemplate.class)
			.run((context) -> assertThat(context.getBean(CheckedTemplate.class).checked).isEmpty());
	}

	@Configuration(proxyBeanMethods = false)
	static class CheckedTemplate {

		final List<String> checked = new CopyOnWriteArrayList<>();

		@Bean
		RedisQueueTemplate checkedQueueTemplate(RedisScriptRunner runner, RedisKeyspace keyspace) {
			return new RedisQueueTemplate(runner, keyspace, JsonMapper.builder().build(),
					(queue) -> new QueueSettings(QueueOrder.FIFO, Duration.ofSeconds(30), 3,
							new BackoffPolicy(Duration.ofMillis(1), 1.0, Duration.ofMillis(1), 0), true,
							Duration.ofHours(1), CollapsePolicy.NONE),
					RedkitMetrics.NONE, RedkitObservations.NONE) {

				@Override
				public void requireStreamServer(String property) {
					CheckedTemplate.this.checked.add(property);
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomTemplate {

		@Bean
		QueueTemplate customQueueTemplate() {
			return new QueueTemplate() {

				@Override
				public void send(String queue, Object payload) {
				}

				@Override
				public void sendAll(String queue, java.util.Collection<?> payloads) {
				}

				@Override
				public boolean sendDelayed(String queue, Object payload, Duration delay) {
					return true;
				}

				@Override
				public long size(String queue) {
					return 0;
				}

				@Override
				public QueueStats stats(String queue) {
					return new QueueStats(0, 0, 0, 0, Duration.ZERO);
				}

				@Override
				public <T> Optional<QueueMessage<T>> receive(String queue, Class<T> type) {
					return Optional.empty();
				}

				@Override
				public <T> Optional<QueueMessage<T>> ackAndReceive(QueueMessage<?> done, Class<T> type) {
					return Optional.empty();
				}

				@Override
				public boolean ack(QueueMessage<?> message) {
					return false;
				}

				@Override
				public boolean extend(QueueMessage<?> message, Duration visibility) {
					return false;
				}

				@Override
				public FailureOutcome fail(QueueMessage<?> message, Throwable error) {
					return FailureOutcome.NOT_OWNED;
				}

				@Override
				public boolean release(QueueMessage<?> message) {
					return false;
				}

				@Override
				public List<DeadLetter> deadLetters(String queue, int limit) {
					return List.of();
				}

				@Override
				public boolean requeueDeadLetter(String queue, String id) {
					return false;
				}

				@Override
				public long requeueDeadLetters(String queue) {
					return 0;
				}

			};
		}

	}

}
