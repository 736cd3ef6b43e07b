package io.github.redkit.ratelimit.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.RateLimitAlgorithm;
import io.github.redkit.ratelimit.RateLimitCall;
import io.github.redkit.ratelimit.RateLimitDecider;
import io.github.redkit.ratelimit.RateLimitReservation;
import io.github.redkit.ratelimit.RateLimitWindow;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Settles reservations with what their calls really used. Under-use is given back by
 * {@link PermitGiveBack} in the windows the call was decided in (retried, applied once);
 * over-use is charged by the decision script itself, read as a charge whatever the
 * windows hold, at the moment of the settlement, in one attempt: a charge sent twice
 * would count twice, so a charge that fails leaves the estimate counted.
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
		if (taken.groups().isEmpty()) {
			// let through without Redis: nothing counted that a settlement could change
			settled(limitName, RateLimitMeters.NOT_COUNTED);
			return CompletableFuture.completedFuture(false);
		}
		long difference = actual - taken.cost();
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
		RateLimitCall call = taken.call();
		RateLimitDecider decider = (call != null) ? this.deciders.apply(limitName) : null;
		for (int i = 0; i < taken.groups().size(); i++) {
			byte[] reply = taken.replies().get(i);
			if (decider != null && call != null) {
				applied.add(decider.settle(call, reply, difference));
			}
			else if (difference < 0) {
				applied.add(this.giveBack.giveBack(taken.limit(), taken.groups().get(i), (int) -difference, reply));
			}
			else {
				applied.add(charge(taken.limit(), taken.groups().get(i), difference));
			}
		}
		return CompletableFuture.allOf(applied.toArray(CompletableFuture[]::new)).thenApply((all) -> {
			boolean done = applied.stream().allMatch(CompletableFuture::join);
			String outcome = !done ? RateLimitMeters.FAILED
					: (difference < 0) ? RateLimitMeters.GIVEN_BACK : RateLimitMeters.CHARGED;
			settled(limitName, outcome);
			return done;
		});
	}

	private void settled(String limitName, String outcome) {
		this.metrics.increment(RateLimitMeters.SETTLEMENTS, "limit", limitName, "outcome", outcome);
	}

	private CompletableFuture<Boolean> charge(PreparedLimit limit, List<String> keys, long excess) {
		long charged = excess;
		if (limit.policy().algorithm() == RateLimitAlgorithm.SLIDING_LOG) {
			// a log keeps one member per permit: more than the largest limit fills every
			// window as much as that many do
			charged = Math.min(excess,
					limit.policy().windows().stream().mapToLong(RateLimitWindow::limit).max().orElse(excess));
		}
		return this.runner
			.executeAsync(RedisRateLimiter.script(limit), this.timeout, keys, limit.chargeArguments(charged))
			.handle((reply, ex) -> {
				if (ex != null) {
					logger.warn("Rate limit '" + limit.name() + "': could not charge " + excess
							+ " permit(s) a settled call used beyond its estimate on " + keys, ex);
					return false;
				}
				return true;
			});
	}

}
