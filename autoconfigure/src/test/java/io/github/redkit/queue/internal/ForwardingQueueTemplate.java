package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import io.github.redkit.queue.DeadLetter;
import io.github.redkit.queue.FailureOutcome;
import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueStats;
import io.github.redkit.queue.QueueTemplate;

/**
 * An application's own {@link QueueTemplate} (not Redkit's, nor a subclass of it) that
 * hands every call to another one; a test overrides the calls it changes.
 */
class ForwardingQueueTemplate implements QueueTemplate {

	private final QueueTemplate delegate;

	ForwardingQueueTemplate(QueueTemplate delegate) {
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
		return this.delegate.receive(queue, type);
	}

	@Override
	public <T> Optional<QueueMessage<T>> ackAndReceive(QueueMessage<?> done, Class<T> type) {
		return this.delegate.ackAndReceive(done, type);
	}

	@Override
	public <T> List<QueueMessage<T>> receive(String queue, Class<T> type, int max) {
		return this.delegate.receive(queue, type, max);
	}

	@Override
	public <T> List<QueueMessage<T>> ackAndReceive(Collection<? extends QueueMessage<?>> done, String queue,
			Class<T> type, int max) {
		return this.delegate.ackAndReceive(done, queue, type, max);
	}

	@Override
	public boolean ack(QueueMessage<?> message) {
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

}
