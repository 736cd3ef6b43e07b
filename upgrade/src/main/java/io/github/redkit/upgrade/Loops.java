package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * Threads that each repeat one step, a few milliseconds apart, until stopped; a step in
 * progress finishes first, so nothing taken is left behind by a stop. The limits' loops
 * run fast enough to exhaust them; the others slower, since their promises need
 * interleaving, not volume, and every call costs the build CPU.
 */
final class Loops {

	private final List<Thread> threads = new ArrayList<>();

	private final String instance;

	private volatile boolean running = true;

	Loops(String instance) {
		this.instance = instance;
	}

	/**
	 * Starts a step's threads.
	 * @param name the step
	 * @param count how many threads repeat it
	 * @param pauseMillis the shortest pause between two steps of a thread (the longest is
	 * twice as long and a millisecond more)
	 * @param step the step
	 */
	void start(String name, int count, int pauseMillis, Runnable step) {
		for (int i = 0; i < count; i++) {
			Thread thread = new Thread(() -> {
				while (this.running) {
					step.run();
					LockSupport
						.parkNanos((pauseMillis + ThreadLocalRandom.current().nextInt(pauseMillis + 2)) * 1_000_000L);
				}
			}, this.instance + "-" + name + "-" + i);
			this.threads.add(thread);
			thread.start();
		}
	}

	void stop() throws InterruptedException {
		this.running = false;
		for (Thread thread : this.threads) {
			thread.join();
		}
	}

}
