package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.MicrometerRedkitObservations;
import io.github.redkit.queue.QueueStore;
import io.github.redkit.queue.internal.QueueTestSupport.Email;
import io.github.redkit.testsupport.Exercises;
import io.github.redkit.testsupport.RedisTopologies;
import io.github.redkit.testsupport.RedisTopology;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTraceContextBuilder;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The trace context travels inside queue messages: the listener's span continues the
 * sender's trace.
 */
@ParameterizedClass
@RedisTopologies(exercises = Exercises.CONNECTION)
class QueueTracingTests {

	@Parameter
	RedisTopology topology;

	private final SimpleTracer tracer = new SimpleTracer();

	private final ObservationRegistry registry = ObservationRegistry.create();

	private final List<DefaultQueueListenerContainer> containers = new CopyOnWriteArrayList<>();

	private QueueTestSupport support;

	private MicrometerRedkitObservations observations;

	@BeforeEach
	void setUp() {
		Propagator propagator = new TraceparentPropagator(this.tracer);
		this.registry.observationConfig()
			.observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
					new PropagatingSenderTracingObservationHandler<>(this.tracer, propagator),
					new PropagatingReceiverTracingObservationHandler<>(this.tracer, propagator),
					new DefaultTracingObservationHandler(this.tracer)));
		this.observations = new MicrometerRedkitObservations(() -> this.registry, List.of());
		this.support = new QueueTestSupport(this.topology, RedkitMetrics.NONE, this.observations, store());
	}

	/**
	 * The store of the queues of this suite; {@link StreamQueueTracingTests} runs it on
	 * the stream store.
	 */
	QueueStore store() {
		return QueueStore.LIST;
	}

	@AfterEach
	void stopContainers() {
		this.containers.forEach(DefaultQueueListenerContainer::stop);
		this.support.close();
	}

	@Test
	void aMessageSentInsideASpanIsHandledInASpanOfTheSameTrace() {
		String queue = this.support.queue();
		List<String> listenerTraceIds = new CopyOnWriteArrayList<>();
		start(queue, (payload) -> {
			Span current = this.tracer.currentSpan();
			listenerTraceIds.add((current != null) ? current.context().traceId() : "no span");
		});
		Observation request = Observation.start("test.request", this.registry);
		try (Observation.Scope scope = request.openScope()) {
			this.support.template.send(queue, new Email("a", 1));
		}
		request.stop();
		await().atMost(Duration.ofSeconds(10)).until(() -> listenerTraceIds.size() == 1);
		SimpleSpan requestSpan = span("test.request");
		SimpleSpan send = span("redkit.queue.send " + queue);
		await().atMost(Duration.ofSeconds(5)).until(() -> findSpan("redkit.queue.handle " + queue) != null);
		SimpleSpan handle = span("redkit.queue.handle " + queue);
		String traceId = requestSpan.context().traceId();
		assertThat(send.context().traceId()).isEqualTo(traceId);
		assertThat(handle.context().traceId()).as("the consumer continues the producer's trace").isEqualTo(traceId);
		assertThat(handle.getParentId()).as("the send span is the remote parent").isEqualTo(send.context().spanId());
		assertThat(listenerTraceIds).containsExactly(traceId);
		assertThat(handle.getTags()).containsEntry("redkit.queue", queue).containsEntry("redkit.outcome", "handled");
		assertThat(send.getTags()).containsEntry("redkit.queue", queue).containsEntry("redkit.outcome", "sent");
	}

	@Test
	void aMessageSentWithoutHeadersIsHandledInANewTrace() {
		String queue = this.support.queue();
		RedisQueueTemplate untraced = this.support.otherInstance();
		untraced.send(queue, new Email("a", 1));
		start(queue, (payload) -> {
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> findSpan("redkit.queue.handle " + queue) != null);
		SimpleSpan handle = span("redkit.queue.handle " + queue);
		assertThat(handle.getParentId()).as("no remote parent").isNullOrEmpty();
		assertThat(findSpan("redkit.queue.send " + queue)).isNull();
		assertThat(handle.getTags()).containsEntry("redkit.outcome", "handled");
	}

	private void start(String queue, QueueTestSupport.ThrowingConsumer listener) {
		QueueListenerContainerFactory factory = this.support.factory(this.support.template, Duration.ofSeconds(5),
				this.observations);
		DefaultQueueListenerContainer container = factory.create(queue, 1,
				QueueTestSupport.handler(Email.class, listener));
		this.containers.add(container);
		container.start();
	}

	private SimpleSpan span(String name) {
		SimpleSpan span = findSpan(name);
		assertThat(span).as("span " + name + " in " + this.tracer.getSpans()).isNotNull();
		return span;
	}

	private SimpleSpan findSpan(String name) {
		return this.tracer.getSpans().stream().filter((span) -> name.equals(span.getName())).findFirst().orElse(null);
	}

	/**
	 * A W3C-like {@code traceparent} propagator for the simple tracer.
	 */
	private record TraceparentPropagator(SimpleTracer tracer) implements Propagator {

		@Override
		public List<String> fields() {
			return List.of("traceparent");
		}

		@Override
		public <C> void inject(TraceContext context, C carrier, Setter<C> setter) {
			setter.set(carrier, "traceparent", "00-" + context.traceId() + "-" + context.spanId() + "-01");
		}

		@Override
		public <C> Span.Builder extract(C carrier, Getter<C> getter) {
			String value = getter.get(carrier, "traceparent");
			if (value == null) {
				return this.tracer.spanBuilder();
			}
			String[] parts = value.split("-");
			return this.tracer.spanBuilder()
				.setParent(new SimpleTraceContextBuilder().traceId(parts[1]).spanId(parts[2]).sampled(true).build());
		}

	}

}
