package io.github.redkit.faults;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitReservation;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.ReactiveRateLimiter;
import reactor.core.publisher.Mono;

/**
 * Breaks the rate limiters of an instance on purpose ({@code faults.broken}), so that a
 * test can show the checker catching a broken build.
 */
class BrokenRateLimiter extends BrokenBuild<RateLimitScenario.Breakage> {

	private final AtomicLong decisions = new AtomicLong();

	BrokenRateLimiter() {
		super("faults.broken", RateLimitScenario.Breakage.class, RateLimiter.class, ReactiveRateLimiter.class);
	}

	private final AtomicLong applications = new AtomicLong();

	@Override
	Object call(Object bean, Method method, Object[] args) throws Throwable {
		if (broken(RateLimitScenario.Breakage.APPLIED_TWICE) && method.getName().startsWith("tryAcquire")
				&& this.applications.incrementAndGet() % 5 == 0) {
			applyOnce(bean, method, args);
		}
		return bend(invoke(bean, method, args),
				(value) -> (value instanceof RateLimitDecision decision) ? breakIt(decision)
						: (value instanceof RateLimitReservation reservation) ? breakIt(reservation) : value);
	}

	/**
	 * A decision applied once before the one the caller sees, as a replay without a
	 * dedupe does: the caller sees the second application's answer.
	 */
	private static void applyOnce(Object bean, Method method, Object[] args) {
		try {
			Object first = invoke(bean, method, args);
			if (first instanceof Mono<?> mono) {
				mono.block();
			}
			else if (first instanceof CompletableFuture<?> future) {
				future.join();
			}
		}
		catch (Throwable ex) {
			// its reply was lost anyway
		}
	}

	private RateLimitReservation breakIt(RateLimitReservation reservation) {
		if (!broken(RateLimitScenario.Breakage.OVER_GIVE_BACK)) {
			return reservation;
		}
		boolean fifth = this.decisions.incrementAndGet() % 5 == 0;
		return RateLimitReservation.of(reservation.decision(), reservation.estimate(),
				(actual) -> reservation.settleAsync(fifth ? 0 : actual));
	}

	private RateLimitDecision breakIt(RateLimitDecision decision) {
		if (decision.decidedAt() == null) {
			return decision;
		}
		boolean fifth = this.decisions.incrementAndGet() % 5 == 0;
		if (broken(RateLimitScenario.Breakage.OVER_ALLOW) && !decision.allowed() && fifth) {
			return new RateLimitDecision(true, 0, decision.retryAfter(), decision.resetAfter(), decision.window(),
					decision.policy(), List.of(), decision.decidedAt());
		}
		if (broken(RateLimitScenario.Breakage.LOST_PERMIT) && decision.allowed() && fifth
				&& decision.policy() != null) {
			return new RateLimitDecision(false, 0, decision.resetAfter(), decision.resetAfter(), decision.window(),
					decision.policy(), decision.policy().windows(), decision.decidedAt());
		}
		return decision;
	}

}
