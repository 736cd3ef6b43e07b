package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.redkit.core.internal.RedkitThreads;
import io.github.redkit.queue.QueueListenerContainer;
import io.github.redkit.queue.QueueMessageHandler;
import io.github.redkit.queue.QueueReceiver;
import io.github.redkit.queue.QueueStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Consumes one queue with a number of consumer threads, each taking messages through a
 * {@link QueueReceiver} and waiting on an empty queue with a blocking {@code BLMOVE} (no
 * sleep polling; from a connection pool, within the {@link PooledWaitShare share} of it
 * that all consumers' waits may hold). Created by a
 * {@link QueueListenerContainerFactory}. {@link #stop()} lets in-flight messages finish
 * for up to the shutdown timeout and gives the others back to the queue.
 */
public class DefaultQueueListenerContainer implements QueueListenerContainer {

	private static final Log logger = LogFactory.getLog(DefaultQueueListenerContainer.class);

	/**
	 * How long a stop waits at most, past {@code shutdown-timeout}, for Redis to take
	 * back the messages of listeners that did not finish.
	 */
	private static final Duration GIVE_BACK_WAIT = Duration.ofSeconds(1);

	private final String queue;

	private final int concurrency;

	private final QueueMessageHandler handler;

	private final ConsumerSetup setup;

	private final Duration shutdownTimeout;

	private final List<QueueConsumer> consumers = new ArrayList<>();

	private final List<Thread> threads = new ArrayList<>();

	/**
	 * How long after its deadline a stop waits at most for Redis to answer what it and
	 * its consumers send; {@code null} for as long again as {@code shutdown-timeout}, no
	 * more than {@link #GIVE_BACK_WAIT}.
	 */
	private volatile @Nullable Duration answerWait;

	DefaultQueueListenerContainer(String queue, int concurrency, QueueMessageHandler handler, ConsumerSetup setup) {
		Assert.isTrue(concurrency > 0, () -> "Concurrency of the listener of queue '" + queue + "' must be > 0");
		this.queue = queue;
		this.concurrency = concurrency;
		this.handler = handler;
		this.setup = setup;
		this.shutdownTimeout = setup.shutdownTimeout();
	}

	/**
	 * The queue this container consumes.
	 * @return the queue name
	 */
	@Override
	public String queue() {
		return this.queue;
	}

	/**
	 * Starts the consumer threads.
	 */
	@Override
	public synchronized void start() {
		if (!this.threads.isEmpty()) {
			return;
		}
		for (int i = 0; i < this.concurrency; i++) {
			QueueConsumer consumer = new QueueConsumer(this.queue, this.handler, this.setup);
			// platform consumers keep the application alive, as they always have
			Thread thread = RedkitThreads.newThread("redkit-queue-" + this.queue + "-" + (i + 1), consumer, false);
			this.consumers.add(consumer);
			this.threads.add(thread);
			thread.start();
		}
	}

	/**
	 * Sets how long after its deadline a stop waits at most for Redis to answer what it
	 * and its consumers send, instead of as long again as {@code shutdown-timeout} and no
	 * more than {@link #GIVE_BACK_WAIT}. For tests: the thread hand-offs a test drives
	 * past the deadline may take longer than a second on a loaded machine.
	 * @param answerWait the wait
	 */
	void setAnswerWait(Duration answerWait) {
		this.answerWait = answerWait;
	}

	/**
	 * Whether consumer threads are running.
	 * @return {@code true} between start and stop
	 */
	@Override
	public synchronized boolean isRunning() {
		return !this.threads.isEmpty();
	}

	/**
	 * Tells the consumers to stop taking messages, without waiting.
	 */
	synchronized void signalStop() {
		this.consumers.forEach(QueueConsumer::stop);
	}

	/**
	 * Stops taking messages, waits up to the shutdown timeout for the messages being
	 * handled, and gives the ones still being handled back to the queue.
	 */
	@Override
	public void stop() {
		stop(System.nanoTime());
	}

	/**
	 * Stops as {@link #stop()} does, from a stop that started earlier: a registry stops
	 * all its containers with one deadline, not one each.
	 * @param startedAt when the stop started ({@link System#nanoTime()})
	 */
	synchronized void stop(long startedAt) {
		this.consumers.forEach(QueueConsumer::stop);
		long deadline = startedAt + this.shutdownTimeout.toNanos();
		boolean answered = true;
		List<CompletableFuture<?>> giveBacks = new ArrayList<>();
		for (int i = 0; i < this.threads.size(); i++) {
			Thread thread = this.threads.get(i);
			join(thread, deadline - System.nanoTime());
			// a consumer whose listener returned meanwhile settles its message itself:
			// neither given back nor interrupted while it sends the outcome
			QueueConsumer.GiveBack giveBack = thread.isAlive() ? this.consumers.get(i).giveBack() : null;
			if (giveBack != null && giveBack.listening()) {
				logger.warn("Listener of queue '" + this.queue + "' did not finish within "
						+ this.shutdownTimeout.toMillis() + " ms: its message " + giveBack.id()
						+ " goes back to the queue");
				// the consumer thread sends nothing more: the interrupt reaches only the
				// listener
				thread.interrupt();
			}
			else if (giveBack != null && giveBack.id() != null) {
				logger.warn("Listener of queue '" + this.queue + "' had not started on message " + giveBack.id()
						+ " when the stop's shutdown-timeout of " + this.shutdownTimeout.toMillis()
						+ " ms ran out: the message goes back to the queue unhandled");
			}
			if (giveBack != null) {
				giveBacks.add(giveBack.sent());
			}
			// a consumer whose take Redis did not answer in time gives it up; what it
			// settles at its end (the acknowledgements of a take refused before its
			// claim) is waited for as a give-back is, when settling closes below
			else if (thread.isAlive() && this.consumers.get(i).giveUpTake()) {
				logger.warn("Consumer of queue '" + this.queue + "' still waited for Redis to answer its take after "
						+ this.shutdownTimeout.toMillis() + " ms: the take is given up");
				answered = false;
			}
			// a consumer that settles on its own (its end's acknowledgements and
			// give-backs, one after another) is waited for as a give-back is
			else if (thread.isAlive()) {
				giveBacks.add(this.consumers.get(i).settling());
			}
		}
		// a give-back Redis did not answer in time: it would not answer the stop either
		answered &= awaitGiveBacks(giveBacks, deadline);
		// no consumer's call starts after the stop returned (what was not sent by now
		// comes back after its visibility timeout); a settle a consumer registered
		// after the stop looked is waited for first, within the same bound
		long lastAnswer = lastAnswer(deadline);
		this.consumers.forEach((consumer) -> consumer.closeSettling(lastAnswer));
		boolean stopped = !this.threads.isEmpty();
		// a consumer still blocked (an idle wait, an acknowledgement, an extend) may wait
		// for a Redis that does not answer, which leaving the group would wait for too
		boolean ended = this.threads.stream().noneMatch(Thread::isAlive);
		this.consumers.clear();
		this.threads.clear();
		// a take given up may have been applied (its consumer then holds entries), and
		// Redis would not answer the stop either: the group is left without waiting
		if (stopped) {
			leaveGroup(answered && ended, deadline);
		}
	}

	/**
	 * How long after its deadline a stop waits at most for Redis to answer what it sends
	 * itself: as long again as {@code shutdown-timeout}, no more than
	 * {@link #GIVE_BACK_WAIT} (unless {@link #setAnswerWait set}).
	 */
	private long lastAnswer(long deadline) {
		Duration wait = this.answerWait;
		return deadline + ((wait != null) ? wait.toNanos()
				: Math.min(this.shutdownTimeout.toNanos(), GIVE_BACK_WAIT.toNanos()));
	}

	/**
	 * Waits for Redis to take back the messages of the listeners that did not finish
	 * (their give-backs sent side by side) for as long again as {@code shutdown-timeout}
	 * and no more than {@link #GIVE_BACK_WAIT}: a Redis that does not answer would hold
	 * the stop for the client's command timeout. What it has not taken back by then comes
	 * back after its visibility timeout.
	 * @return whether Redis answered every give-back
	 */
	private boolean awaitGiveBacks(List<CompletableFuture<?>> giveBacks, long deadline) {
		if (giveBacks.isEmpty()) {
			return true;
		}
		try {
			CompletableFuture.allOf(giveBacks.toArray(CompletableFuture[]::new))
				.get(Math.max(0, lastAnswer(deadline) - System.nanoTime()), TimeUnit.NANOSECONDS);
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException ex) {
			// each give-back that failed was logged by its consumer
		}
		catch (TimeoutException ex) {
			logger.warn("Redis did not take back " + giveBacks.stream().filter((giveBack) -> !giveBack.isDone()).count()
					+ " message(s) of queue '" + this.queue
					+ "' in time: they come back after their visibility timeout");
		}
		return false;
	}

	/**
	 * A stream queue's consumer with nothing pending leaves its group, so that stopped
	 * instances do not pile up in {@code XINFO CONSUMERS}; one still holding entries (a
	 * listener that did not finish, another container of the queue) stays, and they are
	 * claimed again after the visibility timeout (the consumers of instances that ended,
	 * holding nothing and idle that long, leave at any instance's stop). A stop whose
	 * consumers did not all end (one may be blocked on a Redis that does not answer) does
	 * not wait for the leave; one whose consumers all ended (an idle wait on a Redis that
	 * stopped answering ends by itself) waits for it no longer than for a give-back, on a
	 * thread of its own.
	 */
	private void leaveGroup(boolean waits, long deadline) {
		if (!(this.setup.template() instanceof RedisQueueTemplate redis)
				|| this.setup.settings().apply(this.queue).store() != QueueStore.STREAM) {
			return;
		}
		if (!waits) {
			try {
				redis.leaveGroupAsync(this.queue).whenComplete((left, ex) -> {
					if (ex != null) {
						logger.debug("Listener of queue '" + this.queue + "' could not leave its consumer group", ex);
					}
				});
			}
			catch (RuntimeException ex) {
				logger.debug("Listener of queue '" + this.queue + "' could not leave its consumer group", ex);
			}
			return;
		}
		CompletableFuture<Boolean> left = CompletableFuture.supplyAsync(() -> redis.leaveGroup(this.queue),
				(task) -> RedkitThreads.newThread("redkit-queue-" + this.queue + "-leave", task, true).start());
		try {
			left.get(Math.max(0, lastAnswer(deadline) - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.debug("Listener of queue '" + this.queue + "' could not leave its consumer group in time", ex);
		}
	}

	/**
	 * Kills the consumers like a crashed process would: nothing in flight is
	 * acknowledged, failed or given back, so it comes back after the visibility timeout.
	 * For tests.
	 */
	synchronized void kill() {
		this.consumers.forEach(QueueConsumer::kill);
		this.threads.forEach(Thread::interrupt);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		this.threads.forEach((thread) -> join(thread, deadline - System.nanoTime()));
		this.consumers.clear();
		this.threads.clear();
	}

	private static void join(Thread thread, long nanos) {
		try {
			thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public String toString() {
		return "QueueListenerContainer[queue=" + this.queue + ", concurrency=" + this.concurrency + ", handler="
				+ this.handler + "]";
	}

}
