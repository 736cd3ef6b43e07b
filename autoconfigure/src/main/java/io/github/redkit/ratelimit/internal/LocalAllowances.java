package io.github.redkit.ratelimit.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.LocalBatchLifecycle;
import io.github.redkit.core.internal.LocalBatchSlot;
import io.github.redkit.core.internal.LocalBatchStop;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitReservation;
import io.github.redkit.ratelimit.RateLimitWindow;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Hands out the permits of named limits' {@linkplain LocalAllowance local allowances}:
 * the first call of an identifier takes a batch from Redis in one decision, and the calls
 * after it are served from the batch in this process until it is used up, its
 * {@code max-age} has passed, or the (sub-)window Redis counted it in ends, whichever
 * comes first; then the unused permits are given back (in the sub-window they were taken
 * in) and the next call takes a new batch. Every permit handed out was counted in Redis
 * before it was handed out, in a (sub-)window that has not ended when it is handed out:
 * so each window's bound holds as if Redis had decided every call, and the price is the
 * permits held unused, at most one batch per instance and identifier. A batch Redis
 * refuses sends the calls of that identifier to Redis one by one until its smallest
 * (sub-)window has passed.
 */
final class LocalAllowances {

	// the end of a batch's sub-window, computed here as the script computes it, less a
	// margin for the clocks of this process and Redis' reply
	private static final long MARGIN_NANOS = 500_000;

	static final int PURGE_ABOVE = 10_000;

	// how many identifiers are kept before idle ones are forgotten
	private final int purgeAbove;

	private final PermitTaker taker;

	private final PermitSettlement settlement;

	private final RedkitMetrics metrics;

	private final LongSupplier clock;

	private final Duration timeout;

	private final Map<List<String>, Holder> holders = new ConcurrentHashMap<>();

	private final LocalBatchStop stop;

	private final LocalBatchLifecycle lifecycle;

	// when the identifiers were last swept, so that many live ones are not swept per call
	private volatile long purged;

	/**
	 * Creates the batches of the named limits that have a local allowance (which
	 * {@link RateLimitRegistry} knows).
	 * @param taker takes permits from Redis (or the failure mode)
	 * @param settlement gives back what a batch did not hand out
	 * @param metrics counts batches and permits
	 * @param clock monotonic nanoseconds, as {@link System#nanoTime()}
	 * @param timeout {@code redkit.rate-limit.timeout}: every call decides within it from
	 * its own start; a stopping application awaits its give-backs twice as long
	 * @param purgeAbove how many identifiers are kept before idle ones are forgotten
	 */
	LocalAllowances(PermitTaker taker, PermitSettlement settlement, RedkitMetrics metrics, LongSupplier clock,
			Duration timeout, int purgeAbove) {
		this.purgeAbove = purgeAbove;
		this.taker = taker;
		this.settlement = settlement;
		this.metrics = metrics;
		this.clock = clock;
		this.timeout = timeout;
		this.stop = new LocalBatchStop(clock);
		// a stop awaits its give-backs at most twice the timeout; a settlement never
		// fails, and a Redis that does not answer keeps what it counted
		this.lifecycle = new LocalBatchLifecycle(this.stop, timeout.multipliedBy(2), this::giveBackAll);
	}

	/**
	 * Decides a call from the identifier's batch, taking a new one when needed.
	 * @param limit the limit
	 * @param allowance its allowance
	 * @param key the identifier
	 * @param cost the permits the call takes
	 * @return the decision
	 */
	CompletableFuture<RateLimitDecision> acquire(PreparedLimit limit, LocalAllowance allowance, String key, int cost) {
		// a cost the batch cannot serve, or one the limiter refuses as malformed
		if (cost < 1 || cost > allowance.size()) {
			return this.taker.take(limit, List.of(key), cost, this.timeout.toNanos()).thenApply(TakenPermits::decision);
		}
		// before anything is taken or a slot made: a key the limiter refuses anyway
		Assert.hasText(key, () -> "Rate limit '" + limit.name() + "': a key must not be null, empty or blank");
		List<String> id = List.of(limit.name(), key);
		Holder holder = this.holders.get(id);
		if (holder == null) {
			if (this.holders.size() > this.purgeAbove
					&& this.clock.getAsLong() - this.purged > allowance.maxAge().toNanos()) {
				purge();
			}
			holder = this.holders.computeIfAbsent(id, (k) -> new Holder());
		}
		// the call decides within the timeout from its start, however long it waits for
		// a batch being taken
		return holder.acquire(limit, allowance, key, cost, this.clock.getAsLong() + this.timeout.toNanos());
	}

	/**
	 * The lifecycle the limiter delegates to: once stopped, what every batch still holds
	 * is given back, and every batch taken from then on (calls go to Redis one by one
	 * until started again); the stop waits, at most twice the timeout, for the takes and
	 * give-backs in flight.
	 * @return the lifecycle
	 */
	LocalBatchLifecycle lifecycle() {
		return this.lifecycle;
	}

	private void giveBackAll() {
		this.holders.forEach((id, holder) -> {
			LocalBatchSlot.Retired<Batch> batch = holder.release();
			if (batch != null) {
				batch.giveBack(this::giveBack);
			}
		});
	}

	/**
	 * A limit was defined again: what its batches hold was counted under the previous
	 * policy and goes back; a batch still being taken under it serves no call either.
	 * @param limitName the limit
	 */
	void redefined(String limitName) {
		this.holders.forEach((id, holder) -> {
			if (id.get(0).equals(limitName)) {
				// a stop awaits this give-back from the moment the batch left its slot
				LocalBatchSlot.Retired<Batch> batch = holder.release();
				if (batch != null) {
					batch.giveBack(LocalAllowances.this::giveBack);
				}
			}
		});
	}

	/** Gives back the batches no call has come for and forgets their identifiers. */
	private void purge() {
		long now = this.clock.getAsLong();
		this.purged = now;
		this.holders.forEach((id, holder) -> {
			if (holder.forgetIfIdle(now)) {
				this.holders.remove(id, holder);
			}
		});
	}

	private void giveBack(Batch batch) {
		long unused = batch.left;
		if (unused == 0) {
			return;
		}
		this.metrics.increment(RateLimitMeters.ALLOWANCE_PERMITS, unused, "limit", batch.limitName, "event",
				RateLimitMeters.GIVEN_BACK);
		this.stop.track(batch.reservation.settleAsync(batch.size - unused));
	}

	private void handedOut(String limitName, int cost, long start) {
		this.metrics.increment(RateLimitMeters.ALLOWANCE_PERMITS, cost, "limit", limitName, "event",
				RateLimitMeters.HANDED_OUT);
		RateLimitMeters.decided(this.metrics, limitName, RateLimitMeters.ALLOWED, start, this.clock.getAsLong());
	}

	/**
	 * How long a batch Redis counted at {@code decidedAt} (ms on its clock) stays in the
	 * (sub-)window it was counted in, for the tightest window: the script's own
	 * arithmetic.
	 */
	static double millisLeftInItsWindow(RateLimitPolicy policy, double decidedAt) {
		AlgorithmDescriptor algorithm = AlgorithmDescriptor.of(policy.algorithm());
		double left = Double.MAX_VALUE;
		for (RateLimitWindow window : policy.windows()) {
			double width = algorithm.countingSpanMillis(policy, window);
			left = Math.min(left, (Math.floor(decidedAt / width) + 1) * width - decidedAt);
		}
		return left;
	}

	/**
	 * The clock of the allowances and how many identifiers they keep before idle ones are
	 * forgotten.
	 *
	 * @param clock monotonic nanoseconds, as {@link System#nanoTime()}
	 * @param purgeAbove how many identifiers are kept before idle ones are forgotten
	 */
	record Sweep(LongSupplier clock, int purgeAbove) {
	}

	/**
	 * Takes permits from Redis, or decides them by the failure mode.
	 */
	@FunctionalInterface
	interface PermitTaker {

		/**
		 * Takes permits.
		 * @param limit the limit
		 * @param keys the identifiers
		 * @param cost the permits
		 * @param timeoutNanos how long Redis is waited for before the failure mode
		 * decides (at most the limiter's timeout; none left decides it at once)
		 * @return what was taken, or decided by the failure mode
		 */
		CompletableFuture<TakenPermits> take(PreparedLimit limit, List<String> keys, int cost, long timeoutNanos);

	}

	/**
	 * A batch being handed out. Guarded by its slot.
	 */
	private static final class Batch {

		final String limitName;

		// the policy Redis counted the batch under: it serves no other
		final RateLimitPolicy policy;

		final RateLimitReservation reservation;

		final RateLimitDecision decision;

		final int size;

		final long taken;

		final long deadline;

		long left;

		Batch(String limitName, RateLimitPolicy policy, RateLimitReservation reservation, int size, long taken,
				long deadline) {
			this.limitName = limitName;
			this.policy = policy;
			this.reservation = reservation;
			this.decision = reservation.decision();
			this.size = size;
			this.taken = taken;
			this.deadline = deadline;
			this.left = size;
		}

		boolean serves(RateLimitPolicy policy, int cost, long now) {
			return now <= this.deadline && this.left >= cost && (this.policy == policy || this.policy.equals(policy));
		}

		/**
		 * Hands out permits: the decision is placed on Redis' clock as late as it can be
		 * (the batch's time plus what passed since it was asked for), never after the end
		 * of its sub-window.
		 */
		RateLimitDecision hand(int cost, long now) {
			this.left -= cost;
			Instant decidedAt = this.decision.decidedAt();
			return new RateLimitDecision(true, this.decision.remaining() + this.left, Duration.ZERO,
					this.decision.resetAfter(), this.decision.window(), this.decision.policy(), List.of(),
					(decidedAt != null) ? decidedAt.plusNanos(Math.max(0, now - this.taken)) : null);
		}

	}

	/**
	 * One identifier's batch, and the batch being taken for it.
	 */
	private final class Holder {

		private final LocalBatchSlot<Batch> slot = new LocalBatchSlot<>(LocalAllowances.this.stop);

		CompletableFuture<RateLimitDecision> acquire(PreparedLimit limit, LocalAllowance allowance, String key,
				int cost, long deadline) {
			long start = LocalAllowances.this.clock.getAsLong();
			LocalBatchSlot.Step<Batch, RateLimitDecision> step = this.slot.next(start,
					(batch) -> batch.serves(limit.policy(), cost, start) ? batch.hand(cost, start) : null);
			LocalBatchSlot.Retired<Batch> retired = step.retired();
			if (retired != null) {
				// a stop awaits this give-back since the batch left its slot
				retired.giveBack(LocalAllowances.this::giveBack);
			}
			RateLimitDecision served = step.served();
			if (served != null) {
				handedOut(limit.name(), cost, start);
				return CompletableFuture.completedFuture(served);
			}
			CompletableFuture<Void> taking = step.taking();
			if (step.direct() || taking == null) {
				CompletableFuture<Void> waitFor = step.waitFor();
				long left = deadline - start;
				if (waitFor != null && left > 0) {
					// at the deadline the call goes to Redis itself with no time left,
					// that
					// is to the failure mode: on the blocking steps' threads, not on the
					// JDK's one timer thread
					return RedisScriptRunner.awaitAtMost(waitFor, Duration.ofNanos(left))
						.thenCompose((ignored) -> acquire(limit, allowance, key, cost, deadline));
				}
				return direct(limit, key, cost, deadline);
			}
			return take(limit, allowance, key, cost, start, deadline, taking);
		}

		private CompletableFuture<RateLimitDecision> direct(PreparedLimit limit, String key, int cost, long deadline) {
			long left = Math.max(0, deadline - LocalAllowances.this.clock.getAsLong());
			return LocalAllowances.this.taker.take(limit, List.of(key), cost, left).thenApply(TakenPermits::decision);
		}

		private CompletableFuture<RateLimitDecision> take(PreparedLimit limit, LocalAllowance allowance, String key,
				int cost, long start, long deadline, CompletableFuture<Void> taking) {
			int size = allowance.size();
			// a waiter that takes after a failed take has only what is left of its own
			// time, so that no call waits a full timeout again
			long left = Math.max(0, deadline - start);
			return this.slot.take(taking,
					() -> LocalAllowances.this.taker.take(limit, List.of(key), size, left).thenCompose((taken) -> {
						RateLimitReservation reservation = LocalAllowances.this.settlement.reservation(taken);
						RateLimitDecision decision = taken.decision();
						if (!decision.allowed()) {
							refused(limit.policy(), start);
							return direct(limit, key, cost, deadline);
						}
						if (taken.replies().size() != 1 || decision.local()) {
							// not a batch Redis counted: this call keeps its permits, the
							// rest goes back
							LocalAllowances.this.stop.track(reservation.settleAsync(cost));
							return CompletableFuture.completedFuture(decision);
						}
						return CompletableFuture
							.completedFuture(started(limit, reservation, taken, size, cost, start, allowance.maxAge()));
					}));
		}

		private RateLimitDecision started(PreparedLimit limit, RateLimitReservation reservation, TakenPermits taken,
				int size, int cost, long start, Duration maxAge) {
			double decidedAt = ByteBuffer.wrap(taken.replies().get(0)).order(ByteOrder.LITTLE_ENDIAN).getDouble(40);
			long inItsWindow = (long) (millisLeftInItsWindow(limit.policy(), decidedAt) * 1_000_000) - MARGIN_NANOS;
			Batch batch = new Batch(limit.name(), limit.policy(), reservation, size, start,
					start + Math.min(inItsWindow, maxAge.toNanos()));
			// the call that took the batch is placed at Redis' time of the batch
			RateLimitDecision decision = batch.hand(cost, start);
			LocalAllowances.this.metrics.increment(RateLimitMeters.ALLOWANCE_BATCHES, "limit", limit.name());
			LocalAllowances.this.metrics.increment(RateLimitMeters.ALLOWANCE_PERMITS, size, "limit", limit.name(),
					"event", RateLimitMeters.TAKEN);
			LocalAllowances.this.metrics.increment(RateLimitMeters.ALLOWANCE_PERMITS, cost, "limit", limit.name(),
					"event", RateLimitMeters.HANDED_OUT);
			LocalBatchSlot.Retired<Batch> replaced = this.slot.taken(batch);
			if (replaced != null) {
				replaced.giveBack(LocalAllowances.this::giveBack);
			}
			return decision;
		}

		private void refused(RateLimitPolicy policy, long start) {
			AlgorithmDescriptor algorithm = AlgorithmDescriptor.of(policy.algorithm());
			double smallest = Double.MAX_VALUE;
			for (RateLimitWindow window : policy.windows()) {
				smallest = Math.min(smallest, algorithm.countingSpanMillis(policy, window));
			}
			this.slot.refusedUntil(start + (long) (smallest * 1_000_000));
		}

		LocalBatchSlot.@Nullable Retired<Batch> release() {
			return this.slot.release(null);
		}

		/**
		 * Gives back an ended batch and forgets the identifier's slot if nothing is held
		 * or taken for it any more: a call that found this holder before it was removed
		 * then goes to Redis itself instead of taking a batch no one would give back.
		 */
		boolean forgetIfIdle(long now) {
			LocalBatchSlot.Retired<Batch> expired = this.slot.release((batch) -> now <= batch.deadline);
			if (expired != null) {
				expired.giveBack(LocalAllowances.this::giveBack);
			}
			return this.slot.forget();
		}

	}

}
