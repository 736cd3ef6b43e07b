package io.github.redkit.core;

/**
 * The decisions Redkit observes: each one's observation name and the low-cardinality key
 * that names the limit, lock, queue or step it concerns. Observation names differ from
 * the names of Redkit's meters, so that an observation handler that makes meters never
 * counts an event twice under one name.
 */
public enum RedkitObservationKind {

	/** A rate limit decision ({@code RateLimiter.tryAcquire}). */
	RATE_LIMIT_DECISION("redkit.ratelimit.decision", "redkit.limit"),

	/** A concurrency limit permit acquisition. */
	CONCURRENCY_ACQUIRE("redkit.concurrency.acquire", "redkit.limit"),

	/** A lock acquisition, waiting included. */
	LOCK_ACQUIRE("redkit.lock.acquisition", "redkit.lock"),

	/** The time a lock is held, from acquisition to release. */
	LOCK_HOLD("redkit.lock.hold", "redkit.lock"),

	/** An idempotent step claim. */
	STEP_CLAIM("redkit.idempotency.claim", "redkit.step"),

	/**
	 * A budget change, named by its command (create, spend, refund, reserve, commit...).
	 */
	BUDGET_APPLY("redkit.budget.apply", "redkit.operation"),

	/** A queue send: the span whose context travels in the message. */
	QUEUE_SEND("redkit.queue.send", "redkit.queue"),

	/** A queue message handled by a listener: it continues the sender's trace. */
	QUEUE_HANDLE("redkit.queue.handle", "redkit.queue"),

	/**
	 * A message published on a channel; named {@code publish}, not by the channel, which
	 * may be per user or per order.
	 */
	PUBLISH("redkit.pubsub.publish", "redkit.operation");

	private final String observationName;

	private final String nameKey;

	RedkitObservationKind(String observationName, String nameKey) {
		this.observationName = observationName;
		this.nameKey = nameKey;
	}

	/**
	 * The observation's name, under {@code redkit.}.
	 * @return the name
	 */
	public String observationName() {
		return this.observationName;
	}

	/**
	 * The low-cardinality key whose value names the limit, lock, queue or step.
	 * @return the key
	 */
	public String nameKey() {
		return this.nameKey;
	}

}
