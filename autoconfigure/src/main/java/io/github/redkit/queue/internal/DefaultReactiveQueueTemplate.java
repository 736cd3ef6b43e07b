package io.github.redkit.queue.internal;

import java.time.Duration;

import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.ReactiveQueueTemplate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.util.Assert;

/**
 * The {@link ReactiveQueueTemplate} on a {@link RedisQueueTemplate}'s asynchronous calls,
 * so that both faces share one implementation: the same keys, scripts, envelopes, trace
 * headers and meters.
 */
public class DefaultReactiveQueueTemplate implements ReactiveQueueTemplate {

	/** How many messages one take asks for at most, whatever the demand. */
	static final int MAX_TAKE = 100;

	private final RedisQueueTemplate template;

	private final Duration minPoll;

	private final Duration maxPoll;

	private final Scheduler timers;

	/**
	 * Creates the reactive face of a queue template, polling an empty queue after 10 ms
	 * at first, then backing off to once a second.
	 * @param template the template
	 */
	public DefaultReactiveQueueTemplate(RedisQueueTemplate template) {
		this(template, Duration.ofMillis(10), Duration.ofSeconds(1));
	}

	/**
	 * Creates the reactive face of a queue template.
	 * @param template the template
	 * @param minPoll the first wait before polling an empty queue again
	 * @param maxPoll the longest wait, reached by doubling
	 */
	public DefaultReactiveQueueTemplate(RedisQueueTemplate template, Duration minPoll, Duration maxPoll) {
		this(template, minPoll, maxPoll, Schedulers.parallel());
	}

	/**
	 * Creates the reactive face of a queue template that polls an empty queue again on
	 * the given scheduler.
	 * @param template the template
	 * @param minPoll the first wait before polling an empty queue again
	 * @param maxPoll the longest wait, reached by doubling
	 * @param timers where the polls of an empty queue are scheduled
	 */
	DefaultReactiveQueueTemplate(RedisQueueTemplate template, Duration minPoll, Duration maxPoll, Scheduler timers) {
		Assert.isTrue(minPoll.toMillis() > 0 && maxPoll.compareTo(minPoll) >= 0,
				"Poll intervals must be positive, the longest at least the first");
		this.template = template;
		this.minPoll = minPoll;
		this.maxPoll = maxPoll;
		this.timers = timers;
	}

	@Override
	public Mono<Void> send(String queue, Object payload) {
		return Mono.fromFuture(() -> this.template.sendAsync(queue, payload));
	}

	@Override
	public Mono<Boolean> sendDelayed(String queue, Object payload, Duration delay) {
		return Mono.fromFuture(() -> this.template.sendDelayedAsync(queue, payload, delay));
	}

	@Override
	public <T> Flux<QueueMessage<T>> receive(String queue, Class<T> type) {
		Assert.hasText(queue, "queue must not be empty");
		Assert.notNull(type, "type must not be null");
		// the taker emits at most what was requested: the sink's buffer stays empty
		return Flux.create((FluxSink<QueueMessage<T>> sink) -> new QueueTaker<>(this.template, queue, type, sink,
				this.minPoll, this.maxPoll, this.timers)
			.start(), FluxSink.OverflowStrategy.ERROR);
	}

	@Override
	public Mono<Boolean> ack(QueueMessage<?> message) {
		return Mono.fromFuture(() -> this.template.ackAsync(message));
	}

	@Override
	public Mono<Boolean> extend(QueueMessage<?> message, Duration visibility) {
		return Mono.fromFuture(() -> this.template.extendAsync(message, visibility));
	}

	@Override
	public Mono<FailureOutcome> fail(QueueMessage<?> message, Throwable error) {
		return Mono.fromFuture(() -> this.template.failAsync(message, error, false));
	}

	@Override
	public Mono<FailureOutcome> deadLetter(QueueMessage<?> message, Throwable error) {
		return Mono.fromFuture(() -> this.template.failAsync(message, error, true));
	}

	@Override
	public Mono<Boolean> release(QueueMessage<?> message) {
		return Mono.fromFuture(() -> this.template.releaseAsync(message));
	}

}
