package io.github.redkit.faults;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitReservation;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.RateLimiter;
import io.github.redkit.ratelimit.ReactiveRateLimiter;
import org.jspecify.annotations.Nullable;

/**
 * Rate limits of every algorithm, called flat out by blocking, asynchronous and reactive
 * clients of three instances, some cancelled at a random moment; on one limit, calls
 * reserve an estimate and settle with less, whose unused permits are given back with
 * retries. The checker places every allowed decision on Redis' clock (the time its script
 * decided with), weighs it by what the call really used, and holds each limit and key to
 * the README's bound over every interval of one period; for the exact
 * {@code sliding-log}, it also checks that every refusal had a full window behind it
 * (check all windows, then consume: a refused call takes nothing).
 */
class RateLimitScenario implements Scenario {

	/** The limit whose calls reserve {@link #ESTIMATE} permits and settle with fewer. */
	static final String SETTLED = "settled";

	private static final int ESTIMATE = 2;

	/**
	 * The limit whose instances take batches of permits and hand them out themselves (a
	 * local allowance of 2, each batch for at most {@link #ALLOWANCE_MAX_AGE_MILLIS}).
	 */
	static final String ALLOWANCE = "allowance";

	private static final long ALLOWANCE_MAX_AGE_MILLIS = 100;

	static final Map<String, Limit> LIMITS = Map.of("sw", new Limit("sliding-window", 8, 400, 0, 0), "log",
			new Limit("sliding-log", 8, 400, 0, 0), "fixed", new Limit("fixed-window", 8, 400, 0, 0), "bucket",
			new Limit("token-bucket", 8, 400, 0, 0), "log2", new Limit("sliding-log", 3, 150, 8, 600), SETTLED,
			new Limit("sliding-window", 8, 400, 0, 0), ALLOWANCE, new Limit("sliding-window", 8, 400, 0, 0));

	private static final List<String> NAMES = LIMITS.keySet().stream().sorted().toList();

	/**
	 * How late a script whose caller gave up may still run: the longest fault plus a
	 * margin.
	 */
	private static final long LATE_NANOS = Duration.ofMillis(3000).toNanos();

	private final Breakage breakage;

	RateLimitScenario() {
		this(Breakage.NONE);
	}

	RateLimitScenario(Breakage breakage) {
		this.breakage = breakage;
	}

	@Override
	public String capability() {
		return "rate limits";
	}

	@Override
	public String guarantee() {
		return "allowed decisions of one limit and key, on Redis' clock, in every interval of one period: at most the "
				+ "limit (`sliding-window`, `sliding-log`; a settled call weighs what it used, so a give-back applied "
				+ "twice shows; a permit of a local allowance is placed where its batch put it), 2× (`fixed-window`), 2× − 1 (`token-bucket`); a "
				+ "`sliding-log` refusal only with a full window behind it (unknown outcomes counted as allowed). "
				+ "Judged per epoch: Redis restarted empty or on an older snapshot forgets its counts, a clock step "
				+ "starts a new clock; a decision in flight across such a fault (a local allowance's permit: from its batch on) belongs to neither "
				+ "side; a decision " + "taken without Redis (failed open) is not bounded";
	}

	@Override
	public Set<Fault> faults() {
		return EnumSet.allOf(Fault.class);
	}

	@Override
	public List<String> properties() {
		List<String> properties = new ArrayList<>(List.of("redkit.rate-limit.timeout=300ms",
				"redkit.rate-limit.failure-cooldown=100ms", "faults.broken=" + this.breakage));
		LIMITS.forEach((name, limit) -> {
			String prefix = "redkit.rate-limit.limits." + name;
			properties.add(prefix + ".algorithm=" + limit.algorithm);
			properties.add(prefix + ".windows[0].limit=" + limit.limit);
			properties.add(prefix + ".windows[0].period=" + limit.periodMillis + "ms");
			if (limit.limit2 > 0) {
				properties.add(prefix + ".windows[1].limit=" + limit.limit2);
				properties.add(prefix + ".windows[1].period=" + limit.period2Millis + "ms");
			}
		});
		properties.add("redkit.rate-limit.limits." + ALLOWANCE + ".local-allowance.size=2");
		properties.add("redkit.rate-limit.limits." + ALLOWANCE + ".local-allowance.max-age=" + ALLOWANCE_MAX_AGE_MILLIS
				+ "ms");
		return properties;
	}

	@Override
	public List<Class<?>> sources() {
		return List.of(BrokenRateLimiter.class);
	}

	@Override
	public void operate(Client client) throws Exception {
		String name = NAMES.get(client.random().nextInt(NAMES.size()));
		String key = "k" + client.random().nextInt(2);
		int mode = client.random().nextInt(20);
		if (name.equals(SETTLED)) {
			reserveAndSettle(client, key, mode < 10);
		}
		else if (mode < 14) {
			record(client, "acquire", name, key, () -> client.bean(RateLimiter.class).tryAcquire(name, key));
		}
		else if (mode < 17) {
			// a caller that gives up on its future at a random moment
			long waitMillis = client.random().nextInt(30);
			record(client, "acquire-async", name, key, () -> {
				CompletableFuture<RateLimitDecision> future = client.bean(RateLimiter.class)
					.tryAcquireAsync(name, List.of(key), 1);
				try {
					return future.get(waitMillis, TimeUnit.MILLISECONDS);
				}
				finally {
					future.cancel(true);
				}
			});
		}
		else {
			// a subscriber that cancels at a random moment
			Duration wait = Duration.ofMillis(1 + client.random().nextInt(30));
			record(client, "acquire-reactive", name, key,
					() -> client.bean(ReactiveRateLimiter.class).tryAcquire(name, key).timeout(wait).block());
		}
		LockSupport.parkNanos(client.random().nextInt(2_000_000));
	}

	/**
	 * Reserves {@link #ESTIMATE} permits and settles with what the call used, 0 to the
	 * estimate: the unused permits are given back, retried under faults, applied once.
	 * The call is recorded with what it used, whether or not the give-back applied (it
	 * used at least that much).
	 */
	private static void reserveAndSettle(Client client, String key, boolean blocking) {
		long used = client.random().nextInt(ESTIMATE + 1);
		RateLimiter rateLimiter = client.bean(RateLimiter.class);
		client.history()
			.record(client.process(), blocking ? "reserve" : "reserve-async", SETTLED + "/" + key, used, () -> {
				RateLimitReservation reservation = blocking ? rateLimiter.reserve(SETTLED, List.of(key), ESTIMATE)
						: rateLimiter.reserveAsync(SETTLED, List.of(key), ESTIMATE).get(1, TimeUnit.SECONDS);
				Decided decided = decided(reservation.decision());
				if (reservation.allowed()) {
					try {
						reservation.settleAsync(used).get(1, TimeUnit.SECONDS);
					}
					catch (ExecutionException | TimeoutException ex) {
						// the give-back may come later or never: the call used this much
					}
				}
				return decided;
			}, RateLimitScenario::outcome);
	}

	private static void record(Client client, String action, String name, String key,
			java.util.concurrent.Callable<RateLimitDecision> call) {
		client.history()
			.record(client.process(), action, name + "/" + key, 1, () -> decided(call.call()),
					RateLimitScenario::outcome);
	}

	private static @Nullable Decided decided(RateLimitDecision decision) {
		return (decision.decidedAt() != null) ? new Decided(decision.allowed(), micros(decision.decidedAt()),
				decision.exceeded().stream().map((window) -> window.period().toMillis()).toList()) : null;
	}

	private static Outcome outcome(@Nullable Decided decided) {
		return (decided == null) ? Outcome.UNKNOWN : decided.allowed ? Outcome.OK : Outcome.REFUSED;
	}

	private static long micros(Instant instant) {
		return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1000;
	}

	@Override
	public List<String> check(History history) {
		List<String> violations = new ArrayList<>();
		Map<String, List<Op>> byLimitAndKey = history.ops().stream().collect(Collectors.groupingBy(Op::key));
		byLimitAndKey.forEach((limitAndKey, ops) -> {
			Limit limit = LIMITS.get(limitAndKey.substring(0, limitAndKey.indexOf('/')));
			// a permit of a local allowance was counted with its batch, up to max-age
			// before
			// it was handed out: it belongs to the memory its batch was counted in
			long counted = limitAndKey.startsWith(ALLOWANCE + "/") ? ALLOWANCE_MAX_AGE_MILLIS * 1_000_000 : 0;
			for (List<Op> view : Epochs.views(ops, history.forgetting(), (op) -> op.invoked() - counted)) {
				List<Op> allowed = view.stream()
					.filter(Op::ok)
					.sorted(Comparator.comparingLong(RateLimitScenario::at))
					.toList();
				checkBound(limitAndKey, limit, limit.limit, limit.periodMillis, allowed, violations);
				if (limit.limit2 > 0) {
					checkBound(limitAndKey, limit, limit.limit2, limit.period2Millis, allowed, violations);
				}
			}
			if (limit.algorithm.equals("sliding-log")) {
				checkRefusals(limitAndKey, limit, ops, history.faults(), violations);
			}
		});
		return violations.stream().distinct().toList();
	}

	private static void checkBound(String limitAndKey, Limit limit, long windowLimit, long periodMillis,
			List<Op> allowed, List<String> violations) {
		long bound = switch (limit.algorithm) {
			case "fixed-window" -> 2 * windowLimit;
			case "token-bucket" -> 2 * windowLimit - 1;
			default -> windowLimit;
		};
		long period = periodMillis * 1000;
		int first = 0;
		long used = 0;
		for (int last = 0; last < allowed.size(); last++) {
			used += allowed.get(last).amount();
			while (at(allowed.get(last)) - at(allowed.get(first)) >= period) {
				used -= allowed.get(first).amount();
				first++;
			}
			if (used > bound) {
				violations.add(String.format("%s: %d used within %d ms (bound %d):%n    %s", limitAndKey, used,
						periodMillis, bound,
						allowed.subList(first, last + 1)
							.stream()
							.map(Op::toString)
							.collect(Collectors.joining("\n    "))));
				first = last + 1;
				used = 0;
			}
		}
	}

	/**
	 * A {@code sliding-log} refusal by a window needs that window full: as many allowed,
	 * or possibly allowed, calls in the period before it on Redis' clock. Unknown
	 * outcomes count as allowed when their script could have run within that period. A
	 * clock that stepped back keeps calls logged in its future: refusals within a period
	 * plus the step after a clock jump are not judged.
	 */
	private static void checkRefusals(String limitAndKey, Limit limit, List<Op> ops, List<FaultRecord> faults,
			List<String> violations) {
		List<Op> allowed = ops.stream().filter(Op::ok).toList();
		List<Op> unknown = ops.stream().filter(Op::unknown).toList();
		for (Op refused : ops) {
			if (refused.outcome() != Outcome.REFUSED || afterAClockStep(refused, faults)) {
				continue;
			}
			for (long periodMillis : ((Decided) refused.value()).exceeded) {
				long windowLimit = (periodMillis == limit.periodMillis) ? limit.limit : limit.limit2;
				long period = periodMillis * 1000;
				long t = at(refused);
				long inWindow = allowed.stream().filter((op) -> at(op) > t - period && at(op) <= t).count();
				long possibly = unknown.stream()
					.filter((op) -> op.invoked() <= refused.completed()
							&& op.completed() + LATE_NANOS >= refused.invoked() - period * 1000)
					.count();
				if (inWindow + possibly < windowLimit) {
					violations.add(String.format(
							"%s: refused by its %d ms window with %d allowed and %d unknown in it (limit %d): %s",
							limitAndKey, periodMillis, inWindow, possibly, windowLimit, refused));
				}
			}
		}
	}

	private static boolean afterAClockStep(Op op, List<FaultRecord> faults) {
		return faults.stream()
			.filter((fault) -> fault.event().fault() == Fault.CLOCK_JUMP)
			.anyMatch((fault) -> op.completed() >= fault.started()
					&& op.invoked() <= fault.healed() + (Math.abs(fault.event().strength()) + 1000) * 1_000_000);
	}

	private static long at(Op op) {
		return ((Decided) op.value()).at;
	}

	/**
	 * A limit as configured: one window, or two.
	 */
	record Limit(String algorithm, long limit, long periodMillis, long limit2, long period2Millis) {
	}

	/**
	 * What Redis decided, on its clock, in microseconds; the periods of the windows that
	 * refused.
	 */
	record Decided(boolean allowed, long at, List<Long> exceeded) {

		@Override
		public String toString() {
			return "at " + this.at + (this.exceeded.isEmpty() ? "" : " exceeded " + this.exceeded);
		}

	}

	/**
	 * A deliberately broken build, to show that the checker catches it.
	 */
	enum Breakage {

		NONE,

		/**
		 * One refused call in five is let through, as a script that skipped its check
		 * would.
		 */
		OVER_ALLOW,

		/** One allowed call in five is reported refused, after it consumed its permit. */
		LOST_PERMIT,

		/**
		 * One settlement in five gives back every permit whatever the call used, as a
		 * give-back applied twice would.
		 */
		OVER_GIVE_BACK,

		/**
		 * One decision in five applied twice, the caller seeing the second answer, as a
		 * decision sent again without a dedupe is (issue 43).
		 */
		APPLIED_TWICE

	}

}
