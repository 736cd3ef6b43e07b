package io.github.redkit.ratelimit.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;

import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Decides rate limits in this process while Redis cannot be asked (failure mode
 * {@code local}): every window of a limit keeps its period and allows
 * {@code max(1, floor(limit / instances))} calls per identifier, counted in sub-windows
 * as {@link LocalKeyState} says, so that no interval of one period holds more on this
 * instance. Its decisions are {@linkplain RateLimitDecision#local() marked local} and
 * carry the local policy. It remembers since when it decides, until Redis answers again.
 */
public final class LocalRateLimiter {

	private static final Log logger = LogFactory.getLog(LocalRateLimiter.class);

	private final RateLimitInstances instances;

	private final LocalKeyStates states;

	private final LongSupplier clock;

	private final long origin;

	private final Instant originInstant;

	// a decision reads and writes every window of every identifier at once: a monitor
	// held for a few array reads keeps "check all, then consume" true between threads
	// (a monitor, not a ReentrantLock, whose contention would park an event loop)
	private final Object lock = new Object();

	private volatile @Nullable Instant degradedSince;

	/**
	 * Creates a local limiter on {@link System#nanoTime()}.
	 * @param instances how many instances share the limits
	 * @param maxKeys the most identifiers kept at once (all limits together)
	 */
	public LocalRateLimiter(RateLimitInstances instances, long maxKeys) {
		this(instances, maxKeys, System::nanoTime);
	}

	/**
	 * Creates a local limiter on a clock of its own.
	 * @param instances how many instances share the limits
	 * @param maxKeys the most identifiers kept at once (all limits together)
	 * @param clock monotonic nanoseconds, as {@link System#nanoTime()}
	 */
	public LocalRateLimiter(RateLimitInstances instances, long maxKeys, LongSupplier clock) {
		Assert.isTrue(maxKeys >= 1, "maxKeys must be at least 1");
		this.instances = instances;
		this.states = new LocalKeyStates(maxKeys, clock);
		this.clock = clock;
		this.origin = clock.getAsLong();
		this.originInstant = Instant.now();
	}

	/**
	 * The local share of a policy: the same windows, each limit divided by the number of
	 * instances, rounded down, at least 1.
	 * @param policy the shared policy
	 * @param instances the number of instances
	 * @return the local policy
	 */
	public static RateLimitPolicy localPolicy(RateLimitPolicy policy, int instances) {
		if (instances <= 1) {
			return policy;
		}
		List<RateLimitWindow> windows = new ArrayList<>(policy.windows().size());
		for (RateLimitWindow window : policy.windows()) {
			windows.add(RateLimitWindow.of(Math.max(1, window.limit() / instances), window.period()));
		}
		return new RateLimitPolicy(policy.algorithm(), windows, policy.subWindows());
	}

	/**
	 * Decides a call on this instance: every window of every identifier must have room,
	 * and only then is anything counted.
	 * @param limit the limit
	 * @param keys the identifiers
	 * @param cost the permits the call takes
	 * @return the decision, marked local
	 */
	public RateLimitDecision decide(PreparedLimit limit, List<String> keys, int cost) {
		return decide(limit, keys, cost, true);
	}

	/**
	 * Decides a call on this instance, as {@link #decide(PreparedLimit, List, int)} does.
	 * @param limit the limit
	 * @param keys the identifiers
	 * @param cost the permits the call takes
	 * @param outage whether Redis is away, which makes this instance degraded until it
	 * {@linkplain #recovered() answers again}; {@code false} for one call Redis could not
	 * decide while it answers (a dropped re-send)
	 * @return the decision, marked local
	 */
	public RateLimitDecision decide(PreparedLimit limit, List<String> keys, int cost, boolean outage) {
		RateLimitPolicy policy = localPolicy(limit.policy(), this.instances.count());
		List<RateLimitWindow> windows = policy.windows();
		if (outage && this.degradedSince == null) {
			degraded(limit);
		}
		synchronized (this.lock) {
			long now = this.clock.getAsLong() - this.origin;
			List<LocalKeyState> states = new ArrayList<>(keys.size());
			for (String key : keys) {
				states.add(this.states.get(limit.key(key), windows, policy.subWindows()));
			}
			Set<RateLimitWindow> exceeded = new LinkedHashSet<>();
			RateLimitWindow refusing = null;
			long retryAfter = 0;
			for (int w = 0; w < windows.size(); w++) {
				RateLimitWindow window = windows.get(w);
				for (LocalKeyState state : states) {
					long excess = state.used(w, now) + cost - window.limit();
					if (excess > 0) {
						exceeded.add(window);
						long wait = (cost > window.limit()) ? window.period().toNanos()
								: state.nanosUntilFreed(w, now, excess);
						if (refusing == null || wait > retryAfter) {
							refusing = window;
							retryAfter = wait;
						}
					}
				}
			}
			if (refusing != null) {
				return new RateLimitDecision(false, 0, Duration.ofNanos(retryAfter), Duration.ofNanos(retryAfter),
						refusing, policy, List.copyOf(exceeded), decidedAt(now), true);
			}
			RateLimitWindow tightest = windows.get(0);
			long remaining = Long.MAX_VALUE;
			long resetAfter = 0;
			for (int w = 0; w < windows.size(); w++) {
				for (LocalKeyState state : states) {
					state.add(w, now, cost);
					long left = windows.get(w).limit() - state.used(w, now);
					if (left < remaining) {
						remaining = left;
						tightest = windows.get(w);
						resetAfter = state.nanosUntilReset(w, now);
					}
				}
			}
			return new RateLimitDecision(true, remaining, Duration.ZERO, Duration.ofNanos(resetAfter), tightest, policy,
					List.of(), decidedAt(now), true);
		}
	}

	/**
	 * Settles a call this instance decided with what it really used: under-use is given
	 * back in the sub-window the call was decided in, while that sub-window still counts;
	 * over-use is counted now.
	 * @param limit the limit
	 * @param keys the identifiers
	 * @param decision the local decision on the estimate
	 * @param difference what the call used beyond its estimate, negative when less
	 */
	public void settle(PreparedLimit limit, List<String> keys, RateLimitDecision decision, long difference) {
		RateLimitPolicy policy = localPolicy(limit.policy(), this.instances.count());
		Instant decidedAt = decision.decidedAt();
		synchronized (this.lock) {
			long now = this.clock.getAsLong() - this.origin;
			long at = (decidedAt != null) ? Duration.between(this.originInstant, decidedAt).toNanos() : now;
			for (String key : keys) {
				LocalKeyState state = this.states.get(limit.key(key), policy.windows(), policy.subWindows());
				for (int w = 0; w < policy.windows().size(); w++) {
					if (difference < 0) {
						state.giveBack(w, at, -difference);
					}
					else {
						state.add(w, now, difference);
					}
				}
			}
		}
	}

	private Instant decidedAt(long now) {
		return this.originInstant.plusNanos(now);
	}

	private synchronized void degraded(PreparedLimit limit) {
		if (this.degradedSince == null) {
			this.degradedSince = Instant.now();
			logger.warn("Redis cannot be asked: rate limits are decided on this instance, each window's limit divided"
					+ " by " + this.instances.count() + " instance(s) (" + this.instances.source() + "), first '"
					+ limit.name() + "'");
		}
	}

	/**
	 * Redis answered a decision: the shared counters decide again.
	 */
	public void recovered() {
		if (this.degradedSince != null) {
			synchronized (this) {
				Instant since = this.degradedSince;
				if (since != null) {
					this.degradedSince = null;
					logger.info("Redis answers again: rate limits are decided by the shared counters (decided on"
							+ " this instance since " + since + ")");
				}
			}
		}
	}

	/**
	 * Since when this instance decides its rate limits itself.
	 * @return the moment of the first local decision of the current outage, or
	 * {@code null} while Redis decides
	 */
	public @Nullable Instant degradedSince() {
		return this.degradedSince;
	}

	/**
	 * How many instances each window's limit is divided by.
	 * @return the instances
	 */
	public RateLimitInstances instances() {
		return this.instances;
	}

	/**
	 * How many identifiers the local limiter holds now (an estimate).
	 * @return the number of keys
	 */
	public long keys() {
		return this.states.size();
	}

}
