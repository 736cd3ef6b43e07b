package io.github.redkit.resilience4j;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.RateLimiterUnavailableException;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.event.RateLimiterOnDrainedEvent;
import io.github.resilience4j.ratelimiter.event.RateLimiterOnFailureEvent;
import io.github.resilience4j.ratelimiter.event.RateLimiterOnSuccessEvent;
import io.github.resilience4j.ratelimiter.internal.RateLimiterEventProcessor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A Resilience4j {@link RateLimiter} whose permits are decisions of a named Redkit rate
 * limit (any algorithm, every window), taken for one identifier, so that every instance
 * of an application that names the same limit and identifier shares one count in Redis.
 * <p>
 * A permit is taken when Redis allows it, never reserved for a later moment:
 * {@link #acquirePermission(int)} asks again when Redis says a permit comes back, while
 * the timeout lasts; {@link #reservePermission(int)} answers {@code 0} (taken now) or
 * {@code -1}. A call returns within the longer of the timeout and Redkit's timeout. When
 * Redis cannot be asked, the limit's failure mode decides: a call it refuses is refused
 * here at once, like one over the limit. A failure of Redkit's limiter of any other kind
 * (it has stopped with the application, a defect) refuses the call too, with a WARN, as
 * {@link RedkitBulkhead} does ({@link UndecidedCalls}).
 */
public class RedkitRateLimiter implements RateLimiter {

	private static final Log logger = LogFactory.getLog(RedkitRateLimiter.class);

	// a refused decision whose retry-after rounds to zero must not make a waiter spin
	private static final long MIN_WAIT_NANOS = 1_000_000;

	// a drain that keeps losing races to other instances stops after this many tries
	private static final int DRAIN_ATTEMPTS = 8;

	private final String name;

	private final Map<String, String> tags;

	private final io.github.redkit.ratelimit.RateLimiter limiter;

	private final String limitName;

	private final List<String> keys;

	private final PermitsLeft permitsLeft;

	private final UndecidedCalls undecided;

	private final RateLimiterEventProcessor events = new RateLimiterEventProcessor();

	private final AtomicInteger waitingThreads = new AtomicInteger();

	private volatile RateLimiterConfig config;

	/**
	 * Creates a rate limiter.
	 * @param name the Resilience4j instance name
	 * @param config its Resilience4j configuration: the timeout and the drain predicate
	 * apply; the limit and period are the Redkit limit's
	 * @param tags its tags
	 * @param limiter Redkit's rate limiter
	 * @param limitName the Redkit limit, under {@code redkit.rate-limit.limits}
	 * @param key the identifier the permits are counted for
	 * @param permitsLeft reads the permits left for the metrics
	 * @throws IllegalArgumentException when the limit is unknown or the key empty
	 */
	public RedkitRateLimiter(String name, RateLimiterConfig config, Map<String, String> tags,
			io.github.redkit.ratelimit.RateLimiter limiter, String limitName, String key, PermitsLeft permitsLeft) {
		Assert.hasText(name, "name must not be empty");
		Assert.notNull(config, "config must not be null");
		Assert.hasText(limitName, "limitName must not be empty");
		Assert.hasText(key, "key must not be empty");
		Assert.isTrue(limiter.policy(limitName).isPresent(), () -> "limitName: no Redkit rate limit named '" + limitName
				+ "' (configure it under redkit.rate-limit.limits." + limitName + ")");
		this.name = name;
		this.config = config;
		this.tags = Map.copyOf(tags);
		this.limiter = limiter;
		this.limitName = limitName;
		this.keys = List.of(key);
		this.permitsLeft = permitsLeft;
		this.undecided = new UndecidedCalls(logger, "Rate limiter '" + name + "'", limitName,
				RateLimiterUnavailableException.class);
	}

	/**
	 * The Redkit limit this rate limiter takes its permits from.
	 * @return the limit name
	 */
	public String getLimitName() {
		return this.limitName;
	}

	/**
	 * The identifier the permits are counted for.
	 * @return the key
	 */
	public String getKey() {
		return this.keys.get(0);
	}

	@Override
	public boolean acquirePermission(int permits) {
		checkPermits(permits);
		if (permits > policy().smallestLimit()) {
			// no window can ever hold them: waiting would not help
			return published(false, permits);
		}
		// the first ask waits for Redis as Redkit's timeout says, the next ones no longer
		// than the timeout has left: a call returns within the longer of the two
		long deadline = System.nanoTime() + this.config.getTimeoutDuration().toNanos();
		RateLimitDecision decision = decide(permits);
		while (true) {
			if (decision == null) {
				return published(false, permits);
			}
			if (decision.allowed()) {
				return published(true, permits);
			}
			long wait = Math.max(decision.retryAfter().toNanos(), MIN_WAIT_NANOS);
			// another instance may take the permit first: ask again, while the timeout
			// lasts
			if (wait > deadline - System.nanoTime() || !waitFor(wait)) {
				return published(false, permits);
			}
			long left = deadline - System.nanoTime();
			decision = (left > 0) ? decideWithin(permits, left) : null;
		}
	}

	@Override
	public long reservePermission(int permits) {
		checkPermits(permits);
		// a permit held for a later moment would be counted now, in windows the call
		// does not run in: only one Redis allows now is handed out
		RateLimitDecision decision = decide(permits);
		return published(decision != null && decision.allowed(), permits) ? 0 : -1;
	}

	/**
	 * Takes every permit left now for the key in Redis. Only Redis' decisions count: when
	 * Redis cannot be asked (any failure mode, {@code local} included: this instance's
	 * local share is not Redis' count) the drain stops, and the {@code DRAINED} event
	 * carries what Redis gave before.
	 */
	@Override
	public void drainPermissions() {
		long drained = 0;
		long want = policy().smallestLimit();
		for (int attempt = 0; attempt < DRAIN_ATTEMPTS && want > 0; attempt++) {
			int cost = (int) Math.min(want, Integer.MAX_VALUE);
			RateLimitDecision decision = decide(cost);
			if (decision == null || decision.local() || (decision.allowed() && decision.remaining() < 0)) {
				// refused by the failure mode, decided in this instance, or let through
				// uncounted: Redis was not asked
				break;
			}
			if (decision.allowed()) {
				drained += cost;
			}
			else if (decision.remaining() >= want) {
				// refused with as many left: asking again would not take them
				break;
			}
			want = Math.max(decision.remaining(), 0);
		}
		if (this.events.hasConsumers()) {
			this.events
				.consumeEvent(new RateLimiterOnDrainedEvent(this.name, (int) Math.min(drained, Integer.MAX_VALUE)));
		}
	}

	@Override
	public void changeTimeoutDuration(Duration timeoutDuration) {
		this.config = RateLimiterConfig.from(this.config).timeoutDuration(timeoutDuration).build();
	}

	/**
	 * Changes the limit of the Redkit limit's first window in this instance, as
	 * {@link io.github.redkit.ratelimit.RateLimiter#define} does (counters kept): every
	 * caller of that limit in this instance sees it; other instances keep theirs until
	 * they are changed too.
	 * @param limitForPeriod the new limit, at least 1
	 */
	@Override
	public void changeLimitForPeriod(int limitForPeriod) {
		Assert.isTrue(limitForPeriod >= 1, () -> "limitForPeriod must be at least 1 (was " + limitForPeriod + ")");
		RateLimitPolicy policy = policy();
		List<RateLimitWindow> windows = new ArrayList<>(policy.windows());
		windows.set(0, RateLimitWindow.of(limitForPeriod, windows.get(0).period()));
		this.limiter.define(this.limitName, new RateLimitPolicy(policy.algorithm(), windows, policy.subWindows()));
	}

	@Override
	public String getName() {
		return this.name;
	}

	/**
	 * The Resilience4j configuration, with the limit and period of the Redkit limit's
	 * first window.
	 * @return the configuration
	 */
	@Override
	public RateLimiterConfig getRateLimiterConfig() {
		RateLimitWindow window = policy().windows().get(0);
		return RateLimiterConfig.from(this.config)
			.limitForPeriod((int) Math.min(window.limit(), Integer.MAX_VALUE))
			.limitRefreshPeriod(window.period())
			.build();
	}

	@Override
	public Map<String, String> getTags() {
		return this.tags;
	}

	@Override
	public Metrics getMetrics() {
		return new Metrics() {

			@Override
			public int getNumberOfWaitingThreads() {
				return RedkitRateLimiter.this.waitingThreads.get();
			}

			@Override
			public int getAvailablePermissions() {
				return availablePermissions();
			}

		};
	}

	@Override
	public EventPublisher getEventPublisher() {
		return this.events;
	}

	@Override
	public String toString() {
		return "RedkitRateLimiter{name='" + this.name + "', limit='" + this.limitName + "'}";
	}

	private RateLimitPolicy policy() {
		return this.limiter.policy(this.limitName)
			.orElseThrow(() -> new IllegalStateException("No Redkit rate limit named '" + this.limitName + "'"));
	}

	/**
	 * One decision, as long as Redkit's timeout allows.
	 * @return the decision, {@code null} when refused (the failure mode, or the limiter
	 * could not decide)
	 */
	private @Nullable RateLimitDecision decide(int permits) {
		return this.undecided.ask(() -> this.limiter.tryAcquire(this.limitName, this.keys, permits));
	}

	/**
	 * One decision, cut when the timeout is over: refused then (a late decision of Redis
	 * may still count the permit: that costs one, never grants one).
	 * @return the decision, {@code null} when refused (the timeout over, the thread
	 * interrupted, the failure mode, or the limiter could not decide)
	 */
	private @Nullable RateLimitDecision decideWithin(int permits, long nanos) {
		CompletableFuture<RateLimitDecision> decision = this.undecided
			.ask(() -> this.limiter.tryAcquireAsync(this.limitName, this.keys, permits));
		if (decision == null) {
			return null;
		}
		try {
			return decision.get(nanos, TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			decision.cancel(false);
			return null;
		}
		catch (InterruptedException ex) {
			decision.cancel(false);
			Thread.currentThread().interrupt();
			return null;
		}
		catch (ExecutionException | CancellationException ex) {
			this.undecided.refused(ex);
			return null;
		}
	}

	private int availablePermissions() {
		try {
			return (int) Math.min(this.permitsLeft.read(this.limitName, policy(), this.keys.get(0)), Integer.MAX_VALUE);
		}
		catch (RuntimeException ex) {
			logger.debug("Rate limiter '" + this.name + "': permits left unknown", ex);
			return 0;
		}
	}

	private boolean waitFor(long nanos) {
		this.waitingThreads.incrementAndGet();
		try {
			long deadline = System.nanoTime() + nanos;
			for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
				LockSupport.parkNanos(this, left);
				if (Thread.interrupted()) {
					Thread.currentThread().interrupt();
					return false;
				}
			}
			return true;
		}
		finally {
			this.waitingThreads.decrementAndGet();
		}
	}

	private boolean published(boolean acquired, int permits) {
		if (this.events.hasConsumers()) {
			this.events.consumeEvent(acquired ? new RateLimiterOnSuccessEvent(this.name, permits)
					: new RateLimiterOnFailureEvent(this.name, permits));
		}
		return acquired;
	}

	private static void checkPermits(int permits) {
		Assert.isTrue(permits >= 1, () -> "permits must be at least 1 (was " + permits + ")");
	}

}
