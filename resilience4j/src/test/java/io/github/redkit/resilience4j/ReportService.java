package io.github.redkit.resilience4j;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.resilience4j.bulkhead.BulkheadFullException;
import io.github.resilience4j.bulkhead.annotation.Bulkhead;

/**
 * A report renderer guarded by Resilience4j's own bulkhead annotation, backed by a Redkit
 * concurrency limit. Its calls wait on a gate the test opens, and count how many run at
 * once in a counter every instance of the test shares. Its fallback is public
 * ({@link FallbackMethodsTests}).
 */
public class ReportService {

	private final Gate gate;

	public ReportService(Gate gate) {
		this.gate = gate;
	}

	@Bulkhead(name = "reports", fallbackMethod = "busy")
	public String render(String id) throws InterruptedException {
		this.gate.enter();
		try {
			return "report " + id;
		}
		finally {
			this.gate.leave();
		}
	}

	public String busy(String id, BulkheadFullException ex) {
		this.gate.rejected.incrementAndGet();
		return "busy";
	}

	/**
	 * Holds the calls inside until opened, and counts them.
	 */
	public static final class Gate {

		final AtomicInteger inside = new AtomicInteger();

		final AtomicInteger mostInside = new AtomicInteger();

		final AtomicInteger rejected = new AtomicInteger();

		private volatile CountDownLatch open = new CountDownLatch(0);

		void close() {
			this.open = new CountDownLatch(1);
			this.rejected.set(0);
		}

		void open() {
			this.open.countDown();
		}

		void enter() throws InterruptedException {
			this.mostInside.accumulateAndGet(this.inside.incrementAndGet(), Math::max);
			boolean opened = false;
			try {
				opened = this.open.await(30, TimeUnit.SECONDS);
			}
			finally {
				// a call that never got through (interrupted, or the gate kept shut)
				// is no longer inside: a count left behind would be wrong in every
				// later round of this JVM
				if (!opened) {
					this.inside.decrementAndGet();
				}
			}
			if (!opened) {
				throw new IllegalStateException("the gate was never opened");
			}
		}

		void leave() {
			this.inside.decrementAndGet();
		}

	}

}
