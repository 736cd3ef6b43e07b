package io.github.redkit.sample.control;

import java.util.concurrent.TimeUnit;

import org.springframework.stereotype.Component;

/**
 * Spaces fan-out messages of this process at most {@code rate} per second (0 = no limit),
 * as set through the durable control state.
 */
@Component
public class FanOutThrottle {

	private volatile long intervalNanos;

	private long next;

	void setRate(long perSecond) {
		this.intervalNanos = (perSecond > 0) ? TimeUnit.SECONDS.toNanos(1) / perSecond : 0;
	}

	public long rate() {
		long interval = this.intervalNanos;
		return (interval > 0) ? TimeUnit.SECONDS.toNanos(1) / interval : 0;
	}

	/**
	 * Waits for this worker's turn.
	 * @throws InterruptedException when the worker is stopped while waiting
	 */
	public void acquire() throws InterruptedException {
		long interval = this.intervalNanos;
		if (interval == 0) {
			return;
		}
		long wait;
		synchronized (this) {
			long now = System.nanoTime();
			long slot = Math.max(now, this.next);
			this.next = slot + interval;
			wait = slot - now;
		}
		if (wait > 0) {
			TimeUnit.NANOSECONDS.sleep(wait);
		}
	}

}
