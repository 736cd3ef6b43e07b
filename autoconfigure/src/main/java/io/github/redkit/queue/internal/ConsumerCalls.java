package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.queue.QueueMessage;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The calls a {@link QueueConsumer} sends to Redis (to take, settle, extend or fail a
 * message), and the stop's hold on them: no take starts once the stop began
 * ({@link #stopTakes}, {@link #take}), no other call once it returned
 * ({@link #closeSettling}), and what the consumer thread settles on its own is there for
 * the stop to wait for ({@link #settling()}).
 */
final class ConsumerCalls {

	/**
	 * Logs as the consumer it serves: the log categories an application configures stay
	 * those of the consumer.
	 */
	private static final Log logger = LogFactory.getLog(QueueConsumer.class);

	/**
	 * How long a call the consumer makes waits for Redis at most (as the template's own
	 * calls do).
	 */
	static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

	/**
	 * The consumer whose take runs on this thread, so that Redkit's template, even
	 * reached through a subclass's own {@code take}, starts its claim under that
	 * consumer's {@link #sending} ({@link #startTake}).
	 */
	private static final ThreadLocal<ConsumerCalls> TAKING = new ThreadLocal<>();

	private final String queue;

	/**
	 * The stop began: no take starts from now on. Written under {@link #sending}.
	 */
	private boolean takesStopped;

	/**
	 * The take under way on the consumer thread found takes stopped before any of its
	 * claims started. Read and written by the consumer thread only.
	 */
	private boolean takeRefused;

	/**
	 * How many claims the take under way started. Read and written by the consumer thread
	 * only.
	 */
	private int claimsStarted;

	/**
	 * The stop returned: no call to Redis starts after it (what was not sent comes back
	 * after its visibility timeout). Written under {@link #sending}.
	 */
	private volatile boolean settlingClosed;

	/**
	 * Guards {@link #settlingClosed}: a call starts (Redkit's template writes it at once)
	 * while it is held, so that none starts after the stop returned.
	 */
	private final Object sending = new Object();

	/**
	 * A take resent under a failed take's name is under way ({@link #startResend}).
	 * Guarded by {@link #sending}.
	 */
	private boolean resending;

	/**
	 * What the consumer thread settles on its own ({@link #awaitSettling}).
	 */
	private volatile CompletableFuture<?> settling = CompletableFuture.completedFuture(null);

	/**
	 * Stands for the settle a consumer whose take a stop gave up has yet to register at
	 * its end ({@link #awaitEndSettle}), done once it did. Guarded by {@link #sending}.
	 */
	private @Nullable CompletableFuture<Void> endSettle;

	ConsumerCalls(String queue) {
		this.queue = queue;
	}

	/**
	 * Starts a settling call (an acknowledgement, a give-back) unless the stop returned;
	 * a call that fails is logged.
	 * @param call starts the call
	 * @param message the message it settles
	 * @param what what it does, for the log
	 * @return the call under way, or done when the stop returned
	 */
	CompletableFuture<?> send(Supplier<CompletableFuture<Boolean>> call, QueueMessage<Object> message, String what) {
		CompletableFuture<Boolean> sent;
		try {
			sent = start(call);
		}
		catch (RuntimeException ex) {
			sent = CompletableFuture.failedFuture(ex);
		}
		if (sent == null) {
			logger.warn("Consumer of queue '" + this.queue + "' stopped before it could " + what + " message "
					+ message.id() + "; it comes back after its visibility timeout");
			return CompletableFuture.completedFuture(null);
		}
		return sent.whenComplete((done, ex) -> {
			if (ex != null) {
				logger.warn("Cannot " + what + " message " + message.id() + " of queue '" + this.queue
						+ "'; it comes back after its visibility timeout", RedisScriptRunner.unwrap(ex));
			}
		});
	}

	/**
	 * Makes a call and waits for its answer, unless the stop returned.
	 * @return the answer, or {@code null} when the stop returned
	 */
	<T> @Nullable T sendAndWait(Supplier<CompletableFuture<T>> call) {
		CompletableFuture<T> sent = start(call);
		return (sent != null) ? RedisScriptRunner.await(sent, CALL_TIMEOUT, "a call of queue '" + this.queue + "'")
				: null;
	}

	/**
	 * Starts a call unless the stop returned: under {@link #sending}, so that none starts
	 * after it (Redkit's template writes it at once).
	 * @return the call under way, or {@code null} when the stop returned
	 */
	private <T> @Nullable CompletableFuture<T> start(Supplier<CompletableFuture<T>> call) {
		synchronized (this.sending) {
			return this.settlingClosed ? null : call.get();
		}
	}

	/**
	 * The stop began: no take of the consumer's starts from now on. Taken under
	 * {@link #sending}, so that a claim of Redkit's template either started before (the
	 * stop then waits for its consumer, or gives the take up past
	 * {@code shutdown-timeout}) or is refused.
	 */
	void stopTakes() {
		synchronized (this.sending) {
			this.takesStopped = true;
		}
	}

	/**
	 * Runs a take of the consumer thread, unless the stop began. Redkit's template starts
	 * its claim under {@link #sending} ({@link #startTake}) and waits for it outside,
	 * however its {@code take} was reached. An application's own template takes blocking,
	 * so it cannot be started under the lock: it is checked before it starts, and one
	 * that began before the stop is given up past {@code shutdown-timeout} (its thread
	 * interrupted), which a template that ignores the interrupt may still write after the
	 * stop returned.
	 * @param take the take, through the consumer's receiver
	 * @return its answer, or {@code null} when the stop began before it started (nothing
	 * was sent: what it would have acknowledged is still pending)
	 */
	<T> @Nullable T take(Supplier<T> take) {
		synchronized (this.sending) {
			if (this.takesStopped || this.settlingClosed) {
				return null;
			}
		}
		this.takeRefused = false;
		this.claimsStarted = 0;
		TAKING.set(this);
		try {
			T answer = take.get();
			return this.takeRefused ? null : answer;
		}
		finally {
			TAKING.remove();
		}
	}

	/**
	 * Whether a claim of Redkit's template started in the last take ({@link #take}),
	 * carrying the acknowledgements it was to send: on the consumer thread, once the take
	 * ended.
	 * @return {@code false} when none did (the take sent nothing, if it was Redkit's)
	 */
	boolean claimStarted() {
		return this.claimsStarted > 0;
	}

	/**
	 * Starts a claim of Redkit's template: on a consumer thread in its take
	 * ({@link #take}), under that consumer's {@link #sending} unless the stop began
	 * (Redkit's template writes it at once, its answer awaited outside the lock);
	 * anywhere else (an application's own call, a take resent under a failed take's name,
	 * which {@link #startResend} holds) at once.
	 * @param claim starts the claim
	 * @return the claim under way, or {@code null} when the stop began
	 */
	static <T> @Nullable CompletableFuture<T> startTake(Supplier<CompletableFuture<T>> claim) {
		ConsumerCalls calls = TAKING.get();
		if (calls == null) {
			return claim.get();
		}
		synchronized (calls.sending) {
			if (calls.takesStopped || calls.settlingClosed) {
				// refused = nothing sent, the acknowledgements neither: Redkit's
				// template sends them with a take's first claim only (those it sends
				// after a claim of only unreadable elements carry none), and a refused
				// claim ends its take, so a claim refused after one that started is one
				// that carried none (the take was sent). A subclass whose own take calls
				// Redkit's again on this thread (a retry of its own) has its second call
				// refused as such, its take counted as sent with the first
				calls.takeRefused = calls.claimsStarted == 0;
				return null;
			}
			calls.claimsStarted++;
			return claim.get();
		}
	}

	/**
	 * Starts and waits for, on the consumer thread, what it settles on its own (its end's
	 * acknowledgements and give-backs, a give-back at a stop), which the stop waits for
	 * as well ({@link #settling()}). Its first calls start and it is registered under
	 * {@link #sending}, the lock the stop closes settling under: either the stop's close
	 * finds it and waits for it, or it comes after the close and is refused.
	 * @param settle starts the calls (none starts after the stop returned)
	 */
	void awaitSettling(Supplier<CompletableFuture<?>> settle) {
		CompletableFuture<?> sent;
		synchronized (this.sending) {
			sent = settle.get();
			this.settling = sent;
			if (this.endSettle != null) {
				// a stop that waits for it wakes and finds this settle in its place
				this.endSettle.complete(null);
				this.endSettle = null;
			}
		}
		awaitQuietly(sent);
	}

	/**
	 * A stop gave up the consumer's take: it waits for what the consumer settles at its
	 * end as for any settle of the consumer's own ({@link #closeSettling}), within the
	 * same bound. A take refused before its claim started sent nothing, so the
	 * acknowledgements it was to carry go at the end; a take that was sent leaves nothing
	 * to send but what it hands over. Called before the consumer is interrupted (and so
	 * before it can reach its end).
	 */
	void awaitEndSettle() {
		synchronized (this.sending) {
			CompletableFuture<Void> toCome = new CompletableFuture<>();
			this.endSettle = toCome;
			this.settling = toCome;
		}
	}

	/**
	 * What the consumer thread settles on its own, under way: a stop waits for it before
	 * it closes settling, within the same bounded wait as for its own give-backs, since
	 * the give-backs of a batch go one after another.
	 * @return the settling under way, or done when there is none
	 */
	CompletableFuture<?> settling() {
		return this.settling;
	}

	/**
	 * Waits for calls under way (each logs its own failure) as long as a call's answer
	 * may take.
	 */
	static void awaitQuietly(CompletableFuture<?> sent) {
		try {
			sent.get(CALL_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// logged by each call
		}
	}

	/**
	 * Marks a take resent under a failed take's name as under way, unless the stop
	 * returned: a receiver's take waits for its answer, so it cannot start under
	 * {@link #sending} as the other calls do (a Redis client's thread settling another
	 * message would wait for the lock meanwhile), and the stop waits for it instead
	 * ({@link #closeSettling}).
	 * @return whether the take may be sent
	 */
	boolean startResend() {
		synchronized (this.sending) {
			if (this.settlingClosed) {
				return false;
			}
			this.resending = true;
			return true;
		}
	}

	void endResend() {
		synchronized (this.sending) {
			this.resending = false;
			this.sending.notifyAll();
		}
	}

	/**
	 * The stop returned: no call of this consumer's starts after it. What the consumer
	 * thread settles on its own and registered after the stop looked at it
	 * ({@link #settling()}), or at its end after the stop gave up its take
	 * ({@link #awaitEndSettle}), is waited for first, until {@code lastAnswer} at most,
	 * as the stop's own give-backs are; a take resent under a failed take's name that is
	 * under way is answered first (no longer than the client's command timeout), so that
	 * it is not written after the stop returned.
	 * @param lastAnswer until when ({@link System#nanoTime()}) the stop waits for Redis
	 */
	void closeSettling(long lastAnswer) {
		boolean interrupted = false;
		while (true) {
			CompletableFuture<?> underWay;
			synchronized (this.sending) {
				underWay = this.settling;
				if (interrupted || underWay.isDone() || System.nanoTime() - lastAnswer >= 0) {
					close();
					return;
				}
			}
			interrupted = !awaitUntil(underWay, lastAnswer);
		}
	}

	/**
	 * Waits for calls under way (each logs its own failure) until a time at most.
	 * @return {@code false} when the wait was interrupted
	 */
	private static boolean awaitUntil(CompletableFuture<?> sent, long until) {
		try {
			sent.get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
		catch (ExecutionException | TimeoutException ex) {
			// logged by each call; past the time, the next look closes
		}
		return true;
	}

	/**
	 * Closes settling, under {@link #sending}, once a resent take under way is answered.
	 */
	private void close() {
		synchronized (this.sending) {
			this.settlingClosed = true;
			while (this.resending) {
				try {
					this.sending.wait();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}
	}

}
