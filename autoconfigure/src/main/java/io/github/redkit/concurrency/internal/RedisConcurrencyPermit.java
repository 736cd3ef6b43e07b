package io.github.redkit.concurrency.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.redkit.concurrency.ConcurrencyPermit;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.LeaseRenewer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;

/**
 * A permit taken in Redis by {@link RedisConcurrencyLimiter}: its set, its random id, and
 * its renewal. Closing stops the renewal and removes the id, once.
 */
final class RedisConcurrencyPermit implements ConcurrencyPermit {

	private static final Log logger = LogFactory.getLog(RedisConcurrencyPermit.class);

	private static final int HELD = 0;

	private static final int LOST = 1;

	private static final int CLOSED = 2;

	private final ConcurrencyScripts scripts;

	private final RedkitMetrics metrics;

	private final String limitName;

	private final String redisKey;

	private final String id;

	private final long inFlight;

	private final long remaining;

	private final long acquiredNanos;

	private final long leaseNanos;

	/**
	 * When the lease ends on this machine's clock: a lease (less the millisecond Redis'
	 * floored time may take off it) from when the acquire, or the last renewal Redis
	 * confirmed, was sent (Redis started it later, so it ends no sooner).
	 */
	private volatile long leaseEndNanos;

	private final AtomicInteger state = new AtomicInteger(HELD);

	private volatile LeaseRenewer.@Nullable Renewal renewal;

	RedisConcurrencyPermit(ConcurrencyScripts scripts, RedkitMetrics metrics, PermitGrant grant, long acquiredNanos,
			Duration lease) {
		this.scripts = scripts;
		this.metrics = metrics;
		this.limitName = grant.limitName();
		this.redisKey = grant.redisKey();
		this.id = grant.id();
		this.inFlight = grant.inFlight();
		this.remaining = grant.remaining();
		this.acquiredNanos = acquiredNanos;
		// Redis is sent the lease in whole milliseconds, counts it from the millisecond
		// it
		// started in, floored, and frees the place once that millisecond plus the lease
		// is reached: up to a millisecond before the lease has run from when it was sent,
		// so this machine counts one less
		this.leaseNanos = Math.max(0, TimeUnit.MILLISECONDS.toNanos(lease.toMillis() - 1));
		this.leaseEndNanos = acquiredNanos + this.leaseNanos;
	}

	/**
	 * Renews the lease through {@code extend}, unless it already ran out on this
	 * machine's clock: renewals that could not reach Redis before the lease ended lose
	 * the permit, since its place may be someone else's by then.
	 * @param extend asks Redis to extend the lease
	 * @return whether the lease was extended
	 */
	CompletableFuture<Boolean> renew(Supplier<CompletableFuture<Boolean>> extend) {
		long sent = System.nanoTime();
		if (leaseEnded(sent)) {
			return CompletableFuture.completedFuture(false);
		}
		return extend.get().thenApply((extended) -> {
			if (Boolean.TRUE.equals(extended) && sent + this.leaseNanos - this.leaseEndNanos > 0) {
				this.leaseEndNanos = sent + this.leaseNanos;
			}
			return extended;
		});
	}

	private boolean leaseEnded(long now) {
		return now - this.leaseEndNanos >= 0;
	}

	void renewedBy(LeaseRenewer.Renewal renewal) {
		this.renewal = renewal;
		if (this.state.get() == CLOSED) {
			renewal.stop();
		}
	}

	@Override
	public String limitName() {
		return this.limitName;
	}

	@Override
	public boolean acquired() {
		return true;
	}

	@Override
	public long inFlight() {
		return this.inFlight;
	}

	@Override
	public long remaining() {
		return this.remaining;
	}

	@Override
	public boolean isHeld() {
		if (this.state.get() != HELD) {
			return false;
		}
		if (leaseEnded(System.nanoTime())) {
			markLost();
			return false;
		}
		return true;
	}

	/**
	 * Marks the permit lost, once, so that the metric counts each loss once.
	 */
	void markLost() {
		if (this.state.compareAndSet(HELD, LOST)) {
			this.metrics.increment(ConcurrencyMeters.PERMITS, "limit", this.limitName, "outcome",
					ConcurrencyMeters.LOST);
			logger.warn("Concurrency limit '" + this.limitName
					+ "': a permit's lease ended while its call still ran; another call may have taken its place");
		}
	}

	@Override
	public void close() {
		int previous = stopHolding();
		if (previous == CLOSED) {
			return;
		}
		boolean released;
		try {
			released = this.scripts.release(this.redisKey, this.id);
		}
		catch (DataAccessException ex) {
			notGivenBack(ex);
			return;
		}
		given(released, previous);
	}

	@Override
	public CompletableFuture<Void> closeAsync() {
		int previous = stopHolding();
		if (previous == CLOSED) {
			return CompletableFuture.completedFuture(null);
		}
		return this.scripts.releaseAsync(this.redisKey, this.id).handle((released, ex) -> {
			if (ex == null) {
				given(released, previous);
			}
			else {
				notGivenBack(ex);
			}
			return null;
		});
	}

	/**
	 * Closes the permit once: stops its renewal and records how long it was held.
	 * @return the state before, {@code CLOSED} when it was closed already
	 */
	private int stopHolding() {
		int previous = this.state.getAndSet(CLOSED);
		if (previous == CLOSED) {
			return previous;
		}
		LeaseRenewer.Renewal renewal = this.renewal;
		if (renewal != null) {
			renewal.stop();
		}
		this.metrics.record(ConcurrencyMeters.HELD, System.nanoTime() - this.acquiredNanos, "limit", this.limitName);
		return previous;
	}

	private void given(boolean released, int previous) {
		if (!released && previous == HELD) {
			// its lease ended before the renewer noticed
			this.metrics.increment(ConcurrencyMeters.PERMITS, "limit", this.limitName, "outcome",
					ConcurrencyMeters.LOST);
		}
	}

	private void notGivenBack(Throwable ex) {
		logger.warn("Concurrency limit '" + this.limitName
				+ "': could not give a permit back; it comes back when its lease ends: " + ex.getMessage());
	}

	@Override
	public String toString() {
		return "ConcurrencyPermit '" + this.limitName + "' (" + (isHeld() ? "held" : "not held") + ")";
	}

}
