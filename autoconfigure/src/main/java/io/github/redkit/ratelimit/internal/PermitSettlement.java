package io.github.redkit.ratelimit.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.core.internal.ReplayDroppedException;
import io.github.redkit.ratelimit.RateLimitCall;
import io.github.redkit.ratelimit.RateLimitDecider;
import io.github.redkit.ratelimit.RateLimitReservation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Settles reservations with what their calls really used. Under-use is given back by
 * {@link PermitGiveBack} in the windows the call was decided in (retried, applied once);
 * over-use is charged by the decision script itself, read as a charge whatever the
 * windows hold, at the moment of the settlement, in one attempt: a charge sent twice
 * would count twice, so a charge that fails leaves the estimate counted. A limit a
 * {@link RateLimitDecider} decides (several regions) is settled through it the same way:
 * its give-back with the same retries, its charge once. Whatever fails, a settlement ends
 * with {@code false}, counted {@code failed} ({@code replay-dropped} when every charge
 * that failed was one whose re-send after a reconnect was dropped: another failure among
 * a cluster's slots is not hidden behind it) and logged as a WARN, never exceptionally.
 */
final class PermitSettlement {

	private static final Log logger = LogFactory.getLog(PermitSettlement.class);

	private final RedisScriptRunner runner;

	private final Duration timeout;

	private final PermitGiveBack giveBack;

	private final RedkitMetrics metrics;

	private final Function<String, @Nullable RateLimitDecider> deciders;

	private final @Nullable LocalRateLimiter localLimiter;

	/**
	 * Creates a settlement.
	 * @param runner runs the charge
	 * @param timeout how long a charge waits for Redis
	 * @param giveBack gives back the unused permits
	 * @param metrics counts the settlements
	 * @param deciders the decider of a limit some layer above decides
	 * @param localLimiter what decided while Redis could not be asked, if anything
	 */
	PermitSettlement(RedisScriptRunner runner, Duration timeout, PermitGiveBack giveBack, RedkitMetrics metrics,
			Function<String, @Nullable RateLimitDecider> deciders, @Nullable LocalRateLimiter localLimiter) {
		this.runner = runner;
		this.timeout = timeout;
		this.giveBack = giveBack;
		this.metrics = metrics;
		this.deciders = deciders;
		this.localLimiter = localLimiter;
	}

	/**
	 * The reservation of what a decision took.
	 * @param taken what the decision took
	 * @return the reservation
	 */
	RateLimitReservation reservation(TakenPermits taken) {
		return RateLimitReservation.of(taken.decision(), taken.cost(), (actual) -> apply(taken, actual));
	}

	private CompletableFuture<Boolean> apply(TakenPermits taken, long actual) {
		String limitName = taken.limit().name();
		long difference = actual - taken.cost();
		try {
			return applyDifference(taken, difference);
		}
		catch (RuntimeException ex) {
			// thrown before any future existed: the settlement still ends, counted,
			// logged
			logger.warn("Rate limit '" + limitName + "': could not settle a call at " + actual + " permit(s)", ex);
			settled(limitName, RateLimitMeters.FAILED);
			return CompletableFuture.completedFuture(false);
		}
	}

	private CompletableFuture<Boolean> applyDifference(TakenPermits taken, long difference) {
		String limitName = taken.limit().name();
		if (taken.groups().isEmpty()) {
			// let through without Redis: nothing counted that a settlement could change
			settled(limitName, RateLimitMeters.NOT_COUNTED);
			return CompletableFuture.completedFuture(false);
		}
		if (difference == 0) {
			settled(limitName, RateLimitMeters.UNCHANGED);
			return CompletableFuture.completedFuture(true);
		}
		LocalRateLimiter local = this.localLimiter;
		if (taken.decision().local() && local != null) {
			// counted in this instance: settled there, even if Redis answers again by now
			local.settle(taken.limit(), taken.groups().get(0), taken.decision(), difference);
			settled(limitName, (difference < 0) ? RateLimitMeters.GIVEN_BACK : RateLimitMeters.CHARGED);
			return CompletableFuture.completedFuture(true);
		}
		List<CompletableFuture<Boolean>> applied = new ArrayList<>(taken.groups().size());
		AtomicInteger dropped = new AtomicInteger();
		RateLimitCall call = taken.call();
		RateLimitDecider decider = (call != null) ? this.deciders.apply(limitName) : null;
		for (int i = 0; i < taken.groups().size(); i++) {
			byte[] reply = taken.replies().get(i);
			List<String> keys = taken.groups().get(i);
			if (decider != null && call != null) {
				// the same id for every attempt: the decider applies a give-back once
				String id = RandomIds.next();
				Supplier<CompletableFuture<Boolean>> attempt = () -> decider.settle(call, reply, difference, id);
				applied.add((difference < 0)
						? this.giveBack.retried(limitName, -difference + " permit(s) on " + keys, attempt)
						: chargedOnce(limitName, difference, keys, attempt, dropped));
			}
			else if (difference < 0) {
				applied.add(this.giveBack.giveBack(taken.limit(), keys, (int) -difference, reply));
			}
			else {
				applied.add(chargedOnce(limitName, difference, keys, () -> charge(taken.limit(), keys, difference),
						dropped));
			}
		}
		// every future above ends normally, with false when it could not be applied
		return CompletableFuture.allOf(applied.toArray(CompletableFuture[]::new)).thenApply((all) -> {
			long failed = applied.stream().filter((future) -> !future.join()).count();
			String outcome = (failed == 0) ? ((difference < 0) ? RateLimitMeters.GIVEN_BACK : RateLimitMeters.CHARGED)
					: (failed == dropped.get()) ? RateLimitMeters.REPLAY_DROPPED : RateLimitMeters.FAILED;
			boolean done = failed == 0;
			settled(limitName, outcome);
			return done;
		});
	}

	private void settled(String limitName, String outcome) {
		this.metrics.increment(RateLimitMeters.SETTLEMENTS, "limit", limitName, "outcome", outcome);
	}

	/**
	 * Sends a charge once (a charge sent twice would count twice): one that fails, times
	 * out or throws ends with {@code false} and a WARN, never exceptionally.
	 * @param dropped counts the charges whose re-send after a reconnect was dropped
	 */
	private CompletableFuture<Boolean> chargedOnce(String limitName, long excess, List<String> keys,
			Supplier<? extends CompletableFuture<?>> charge, AtomicInteger dropped) {
		CompletableFuture<?> sent;
		try {
			sent = charge.get();
		}
		catch (RuntimeException ex) {
			sent = CompletableFuture.failedFuture(ex);
		}
		// a timeout's follow-up runs on the runner's threads, not on the JDK's one timer
		return RedisScriptRunner.within(sent, this.timeout).handle((reply, ex) -> {
			if (ex != null && RedisScriptRunner.unwrap(ex) instanceof ReplayDroppedException) {
				dropped.incrementAndGet();
			}
			if (ex != null || Boolean.FALSE.equals(reply)) {
				logger.warn(
						"Rate limit '" + limitName + "': could not charge " + excess
								+ " permit(s) a settled call used beyond its estimate on " + keys,
						(ex != null) ? RedisScriptRunner.unwrap(ex) : null);
				return false;
			}
			return true;
		});
	}

	private CompletableFuture<byte[]> charge(PreparedLimit limit, List<String> keys, long excess) {
		return this.runner.executeAsync(limit.script(), this.timeout, keys, limit.chargeArguments(excess));
	}

}
