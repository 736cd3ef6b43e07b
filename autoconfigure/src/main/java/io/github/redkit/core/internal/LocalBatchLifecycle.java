package io.github.redkit.core.internal;

import java.time.Duration;

/**
 * The {@code SmartLifecycle} part of a bean whose local allowances hold batches: started,
 * batches are taken and kept; stopped, no batch is taken any more, the batches held are
 * given back and the give-backs in flight are awaited within a bound, while the
 * connections are still open (the bean stops, in the default phase, before the connection
 * factory does). The bean delegates its {@code start}, {@code stop} and {@code isRunning}
 * here.
 */
public final class LocalBatchLifecycle {

	private final LocalBatchStop stop;

	private final Duration patience;

	private final Runnable sweep;

	private volatile boolean running;

	/**
	 * Creates the lifecycle of a bean's local allowances.
	 * @param stop what the allowances' slots share
	 * @param patience how long a stop waits for the takes and give-backs in flight
	 * @param sweep gives back the batches the slots hold
	 */
	public LocalBatchLifecycle(LocalBatchStop stop, Duration patience, Runnable sweep) {
		this.stop = stop;
		this.patience = patience;
		this.sweep = sweep;
	}

	/**
	 * Started (again): batches are taken and kept.
	 */
	public void start() {
		this.running = true;
		this.stop.started();
	}

	/**
	 * Stops taking batches, gives back what the slots hold and waits, at most the
	 * patience, for what is in flight.
	 */
	public void stop() {
		this.running = false;
		this.stop.stop(this.patience.toNanos(), this.sweep);
	}

	/**
	 * Whether the bean is running.
	 * @return {@code true} between {@link #start} and {@link #stop}
	 */
	public boolean isRunning() {
		return this.running;
	}

}
