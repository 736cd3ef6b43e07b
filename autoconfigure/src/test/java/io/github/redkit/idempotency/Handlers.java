package io.github.redkit.idempotency;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Annotated methods that count their runs.
 */
public class Handlers {

	final AtomicInteger runs = new AtomicInteger();

	volatile CountDownLatch gate = new CountDownLatch(0);

	volatile boolean fail;

	// the bean is a class-based proxy: tests reach the state through methods

	public AtomicInteger runs() {
		return this.runs;
	}

	public void reset(boolean fail, CountDownLatch gate) {
		this.runs.set(0);
		this.fail = fail;
		this.gate = gate;
	}

	public void fail(boolean fail) {
		this.fail = fail;
	}

	@IdempotentStep(operation = "#key", step = "charge")
	public Receipt charge(String key, long amount) throws InterruptedException {
		this.runs.incrementAndGet();
		this.gate.await(10, TimeUnit.SECONDS);
		if (this.fail) {
			throw new IllegalStateException("payment provider down");
		}
		return new Receipt(key, amount);
	}

	@IdempotentStep(operation = "#key", step = "slow", lease = "300ms")
	public String slow(String key) throws InterruptedException {
		this.runs.incrementAndGet();
		this.gate.await(10, TimeUnit.SECONDS);
		return "done";
	}

	@IdempotentStep(operation = "#key", step = "ping")
	public void ping(String key) {
		this.runs.incrementAndGet();
	}

	@IdempotentStep(operation = "#key", step = "order", fingerprint = "#order")
	public Receipt order(String key, Receipt order) {
		this.runs.incrementAndGet();
		return order;
	}

	@IdempotentStep(operation = "#missing", step = "broken")
	public void broken(String key) {
	}

	/**
	 * A result stored as JSON.
	 *
	 * @param id the id
	 * @param amount the amount
	 */
	public record Receipt(String id, long amount) {

	}

}
