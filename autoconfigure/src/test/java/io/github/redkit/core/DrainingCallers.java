package io.github.redkit.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.context.SmartLifecycle;

import static org.awaitility.Awaitility.await;

/**
 * Callers that keep calling while the application context stops, as the requests that
 * Spring Boot's graceful shutdown drains: this bean stops in the graceful shutdown's
 * phase, after the beans of the default phase (Redkit's), before the connection factory,
 * and lets its callers go on until each has made some calls after it began to stop.
 */
public final class DrainingCallers implements SmartLifecycle {

	/** Where Spring Boot's graceful shutdown drains the requests in flight. */
	public static final int GRACEFUL_SHUTDOWN_PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

	private final int threads;

	private final Runnable call;

	private final List<Thread> started = new ArrayList<>();

	private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();

	private final AtomicLong callsWhileStopping = new AtomicLong();

	private volatile boolean draining;

	private volatile boolean done;

	private volatile boolean running;

	/**
	 * Creates callers, started with the context.
	 * @param threads how many
	 * @param call one call, made again and again
	 */
	public DrainingCallers(int threads, Runnable call) {
		this.threads = threads;
		this.call = call;
	}

	@Override
	public void start() {
		this.running = true;
		for (int i = 0; i < this.threads; i++) {
			Thread caller = new Thread(() -> {
				while (!this.done) {
					try {
						this.call.run();
					}
					catch (Throwable ex) {
						this.failures.add(ex);
						return;
					}
					if (this.draining) {
						this.callsWhileStopping.incrementAndGet();
					}
				}
			}, "draining-caller-" + i);
			caller.setDaemon(true);
			caller.start();
			this.started.add(caller);
		}
	}

	/**
	 * Lets the callers go on until they made a few calls each, then waits for them to
	 * end.
	 */
	@Override
	public void stop() {
		this.draining = true;
		try {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> this.callsWhileStopping.get() >= 20L * this.threads || !this.failures.isEmpty());
		}
		finally {
			this.done = true;
			for (Thread caller : this.started) {
				try {
					caller.join(Duration.ofSeconds(30).toMillis());
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			this.running = false;
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return GRACEFUL_SHUTDOWN_PHASE;
	}

	/**
	 * What the calls threw: nothing, while Redis is there.
	 * @return the failures
	 */
	public List<Throwable> failures() {
		return List.copyOf(this.failures);
	}

}
