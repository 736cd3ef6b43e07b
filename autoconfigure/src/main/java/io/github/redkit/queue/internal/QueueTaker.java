package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.ReactiveQueueTemplate;
import reactor.core.Disposable;
import reactor.core.publisher.FluxSink;
import reactor.core.scheduler.Scheduler;

/**
 * One subscription of {@link ReactiveQueueTemplate#receive}: at most one take in flight,
 * each asking Redis for at most the outstanding demand, so that what is in flight on
 * Redis' side never exceeds what the subscriber requested. An empty queue is polled again
 * on a timer, sooner when Redis says a delayed or expired message becomes ready sooner.
 * Whatever goes wrong after a take ends the subscription with that error (never a
 * subscriber left waiting), and the messages of that take not yet emitted go back to the
 * queue.
 *
 * @param <T> the payload type
 */
final class QueueTaker<T> {

	private final RedisQueueTemplate template;

	private final String queue;

	private final Class<T> type;

	private final FluxSink<QueueMessage<T>> sink;

	private final long minPollMillis;

	private final long maxPollMillis;

	private final Scheduler timers;

	private final AtomicBoolean taking = new AtomicBoolean();

	private volatile boolean cancelled;

	private volatile Disposable timer = () -> {
	};

	private long idleMillis;

	QueueTaker(RedisQueueTemplate template, String queue, Class<T> type, FluxSink<QueueMessage<T>> sink,
			Duration minPoll, Duration maxPoll, Scheduler timers) {
		this.template = template;
		this.queue = queue;
		this.type = type;
		this.sink = sink;
		this.minPollMillis = minPoll.toMillis();
		this.maxPollMillis = maxPoll.toMillis();
		this.timers = timers;
	}

	void start() {
		this.sink.onRequest((n) -> takeIfWanted());
		this.sink.onDispose(() -> {
			this.cancelled = true;
			this.timer.dispose();
		});
	}

	private void takeIfWanted() {
		if (!this.cancelled && this.sink.requestedFromDownstream() > 0 && this.taking.compareAndSet(false, true)) {
			take();
		}
	}

	private void take() {
		int count = (int) Math.min(this.sink.requestedFromDownstream(), DefaultReactiveQueueTemplate.MAX_TAKE);
		if (this.cancelled || count <= 0) {
			done();
			return;
		}
		try {
			this.template.takeAsync(this.queue, this.type, count).whenComplete((taken, ex) -> {
				if (ex != null) {
					this.taking.set(false);
					this.sink.error((ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex);
				}
				else {
					taken(taken);
				}
			});
		}
		catch (RuntimeException ex) {
			this.taking.set(false);
			this.sink.error(ex);
		}
	}

	private void taken(RedisQueueTemplate.Taken<T> taken) {
		List<QueueMessage<T>> messages = taken.messages();
		int handedOut = 0;
		try {
			for (; handedOut < messages.size(); handedOut++) {
				QueueMessage<T> message = messages.get(handedOut);
				if (this.cancelled) {
					// taken for a subscriber that left: back to the queue at once rather
					// than after the visibility timeout
					this.template.releaseAsync(message);
				}
				else {
					this.sink.next(message);
				}
			}
			if (taken.taken() > 0) {
				this.idleMillis = 0;
				done();
				return;
			}
			// empty: poll again after a doubling wait, sooner when something becomes
			// ready
			this.idleMillis = (this.idleMillis == 0) ? this.minPollMillis
					: Math.min(this.maxPollMillis, this.idleMillis * 2);
			long wait = (taken.waitMillis() >= 0) ? Math.min(this.idleMillis, Math.max(1, taken.waitMillis()))
					: this.idleMillis;
			if (!this.cancelled) {
				// rejected when the scheduler is shut down or saturated
				this.timer = this.timers.schedule(this::take, wait, TimeUnit.MILLISECONDS);
				if (this.cancelled) {
					this.timer.dispose();
				}
			}
		}
		catch (RuntimeException ex) {
			// thrown here it would vanish in the take's future and leave the subscriber
			// waiting for ever: it ends the subscription instead, and what was not
			// handed out goes back to the queue (the one that failed too: at least once)
			for (int i = handedOut; i < messages.size(); i++) {
				this.template.releaseAsync(messages.get(i));
			}
			this.taking.set(false);
			this.sink.error(ex);
		}
	}

	private void done() {
		this.taking.set(false);
		// a request that arrived while taking found the flag set and left it to us
		takeIfWanted();
	}

}
