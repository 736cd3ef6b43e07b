package io.github.redkit.core.internal;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * What the local allowances of one bean share when the application stops: once stopping,
 * their slots take no batch (calls go to Redis one by one) and a batch whose take was in
 * flight is given back as soon as it is taken; stopping waits, within a deadline, for the
 * takes and give-backs still in flight. Graceful shutdown drains requests while Redis is
 * still usable, so a batch taken during the drain must not stay held.
 */
public final class LocalBatchStop {

	private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();

	private final LongSupplier clock;

	private volatile boolean stopping;

	// once stopping, what is in flight is awaited (and retried) only until then
	private volatile long deadline;

	/**
	 * Creates the stop of a bean's allowances.
	 * @param clock monotonic nanoseconds, as {@link System#nanoTime()}
	 */
	public LocalBatchStop(LongSupplier clock) {
		this.clock = clock;
	}

	/**
	 * Whether the application is stopping: no batch is taken or kept any more.
	 * @return {@code true} once {@link #stop} was called, until {@link #started}
	 */
	public boolean stopping() {
		return this.stopping;
	}

	/**
	 * Whether stopping has waited as long as it may: a give-back Redis does not answer is
	 * not sent again.
	 * @return {@code true} when stopping and past the deadline
	 */
	public boolean givingUp() {
		return this.stopping && this.clock.getAsLong() - this.deadline > 0;
	}

	/**
	 * Started (again): batches are taken and kept.
	 */
	public void started() {
		this.stopping = false;
	}

	/**
	 * Keeps track of a take (from the moment a slot decides it, before it is sent) or a
	 * give-back, for stopping to wait for.
	 * @param <F> the future's type
	 * @param future what completes when it is done
	 * @return the same future
	 */
	public <F extends CompletableFuture<?>> F track(F future) {
		if (!future.isDone()) {
			this.inFlight.add(future);
			future.whenComplete((result, ex) -> this.inFlight.remove(future));
		}
		return future;
	}

	/**
	 * Stops: from now on no batch is taken or kept; then {@code sweep} gives back what
	 * the slots hold, and this waits for what is in flight (including what it starts)
	 * until {@code patience} has passed.
	 * @param patience how long to wait, in nanoseconds
	 * @param sweep gives back the batches the slots hold
	 */
	public void stop(long patience, Runnable sweep) {
		// the deadline first, then the flag: slots read the flag under their lock, and
		// sweep takes each lock after it is set, so a batch is either swept or refused
		this.deadline = this.clock.getAsLong() + patience;
		this.stopping = true;
		sweep.run();
		while (true) {
			this.inFlight.removeIf(CompletableFuture::isDone);
			List<CompletableFuture<?>> pending = List.copyOf(this.inFlight);
			long wait = this.deadline - this.clock.getAsLong();
			if (pending.isEmpty() || wait <= 0) {
				return;
			}
			for (CompletableFuture<?> future : pending) {
				try {
					future.get(Math.max(this.deadline - this.clock.getAsLong(), 0), TimeUnit.NANOSECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				catch (Exception ex) {
					// failed or not answered in time: the capability logs what it gave up
				}
			}
		}
	}

}
