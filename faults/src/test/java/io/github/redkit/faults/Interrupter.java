package io.github.redkit.faults;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Interrupts a client's thread at a chosen moment of one operation, and never after it:
 * the run's own loop reads an interrupt as the end of the run.
 */
final class Interrupter implements AutoCloseable {

	private static final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "fault-interrupter");
		thread.setDaemon(true);
		return thread;
	});

	private final Thread thread = Thread.currentThread();

	private boolean armed;

	private Interrupter(long afterMillis) {
		this.armed = afterMillis >= 0;
		if (this.armed) {
			timer.schedule(this::fire, afterMillis, TimeUnit.MILLISECONDS);
		}
	}

	/**
	 * Interrupts the calling thread after a while, unless closed first.
	 * @param afterMillis when, or a negative number for never
	 * @return the interrupter, to close when the operation ends
	 */
	static Interrupter after(long afterMillis) {
		return new Interrupter(afterMillis);
	}

	private synchronized void fire() {
		if (this.armed) {
			this.armed = false;
			this.thread.interrupt();
		}
	}

	@Override
	public synchronized void close() {
		this.armed = false;
		// an interrupt that came is consumed here
		Thread.interrupted();
	}

}
