package io.github.redkit.core.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Renews leases on one daemon thread, every third of the lease, for as long as their
 * holder runs: the one way Redkit keeps a lease alive (concurrency permits, idempotent
 * steps). A renewal never overlaps the previous one. Only Redis decides that a lease is
 * lost, on its own clock: while it cannot be reached the renewals go on, and the first
 * answer that finds the lease gone (expired, or taken by someone else) ends it as lost.
 */
public final class LeaseRenewer {

	private static final Log logger = LogFactory.getLog(LeaseRenewer.class);

	private final ScheduledThreadPoolExecutor executor;

	/**
	 * Creates a renewer with a thread of its own.
	 * @param threadName the name of the thread, e.g. {@code redkit-concurrency-leases}
	 */
	public LeaseRenewer(String threadName) {
		this.executor = new ScheduledThreadPoolExecutor(1, RedkitThreads.factory(threadName));
		// stopped renewals cancel their task: keep the queue small
		this.executor.setRemoveOnCancelPolicy(true);
	}

	/**
	 * Starts renewing a lease until the returned renewal is stopped or the lease is lost.
	 * @param lease the lease each renewal asks for
	 * @param extend asks Redis to extend the lease: {@code true} when extended,
	 * {@code false} when the lease is gone; a failure is retried at the next turn
	 * @param lost called once when the lease is lost
	 * @return the renewal, to stop when the holder is done
	 */
	public Renewal start(Duration lease, Supplier<CompletableFuture<Boolean>> extend, Runnable lost) {
		Task task = new Task(extend, lost);
		long period = Math.max(1, lease.toNanos() / 3);
		task.future = this.executor.scheduleWithFixedDelay(task::renew, period, period, TimeUnit.NANOSECONDS);
		return task;
	}

	/**
	 * Stops every renewal: their leases end in Redis as they would if this process had
	 * crashed.
	 */
	public void shutdown() {
		this.executor.shutdownNow();
	}

	/**
	 * A running renewal.
	 */
	public interface Renewal {

		/**
		 * Stops renewing; the lease then ends when it runs out, unless it is given back.
		 */
		void stop();

	}

	private static final class Task implements Renewal {

		private final Supplier<CompletableFuture<Boolean>> extend;

		private final Runnable lost;

		private final AtomicBoolean inFlight = new AtomicBoolean();

		private final AtomicBoolean done = new AtomicBoolean();

		volatile @Nullable ScheduledFuture<?> future;

		Task(Supplier<CompletableFuture<Boolean>> extend, Runnable lost) {
			this.extend = extend;
			this.lost = lost;
		}

		void renew() {
			if (this.done.get()) {
				return;
			}
			if (!this.inFlight.compareAndSet(false, true)) {
				return;
			}
			CompletableFuture<Boolean> answer;
			try {
				answer = this.extend.get();
			}
			catch (RuntimeException ex) {
				answer = CompletableFuture.failedFuture(ex);
			}
			answer.whenComplete((extended, ex) -> {
				this.inFlight.set(false);
				if (ex != null) {
					logger.debug("Could not renew a lease; retrying at the next turn", ex);
				}
				else if (!Boolean.TRUE.equals(extended)) {
					lose();
				}
			});
		}

		private void lose() {
			if (this.done.compareAndSet(false, true)) {
				cancel();
				this.lost.run();
			}
		}

		@Override
		public void stop() {
			this.done.set(true);
			cancel();
		}

		private void cancel() {
			ScheduledFuture<?> future = this.future;
			if (future != null) {
				future.cancel(false);
			}
		}

	}

}
