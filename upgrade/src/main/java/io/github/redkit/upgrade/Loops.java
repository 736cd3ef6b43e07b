package io.github.redkit.upgrade;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * Threads that each repeat one step, a few milliseconds apart (enough to exhaust every
 * limit, little enough to leave the CPU to the other instances), until stopped; a step in
 * progress finishes first, so nothing taken is left behind by a stop.
 */
final class Loops {

	private final List<Thread> threads = new ArrayList<>();

	private final String instance;

	private volatile boolean running = true;

	Loops(String instance) {
		this.instance = instance;
	}

	void start(String name, int count, Runnable step) {
		for (int i = 0; i < count; i++) {
			Thread thread = new Thread(() -> {
				while (this.running) {
					step.run();
					LockSupport.parkNanos(3_000_000 + ThreadLocalRandom.current().nextInt(5_000_000));
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
