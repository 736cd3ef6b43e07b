package io.github.redkit.ratelimit.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.RedkitOutcomes;
import io.github.redkit.core.internal.LocalBatchLifecycle;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.RateLimitCall;
import io.github.redkit.ratelimit.RateLimitDecider;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitFailureMode;
import io.github.redkit.ratelimit.RateLimitObservationKind;
import io.github.redkit.ratelimit.RateLimitPolicy;
import io.github.redkit.ratelimit.RateLimitReservation;
import io.github.redkit.ratelimit.RateLimitWindow;
import io.github.redkit.ratelimit.RateLimiter;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.util.Assert;

/**
 * The {@link RateLimiter} on Redis: it takes a call's limit from its
 * {@link RateLimitRegistry}, serves it from a {@linkplain LocalAllowances local
 * allowance} when the limit has one, and otherwise sends it to the limit's decider or to
 * the limit's script: one identifier directly, several through the
 * {@link ClusterSlotFanOut} (one script per cluster slot). When Redis does not answer
 * within the timeout, the {@link RateLimitFailurePolicy} decides
 * ({@linkplain RateLimitFailureMode failure mode} and cooldown).
 */
public class RedisRateLimiter implements RateLimiter, SmartLifecycle {

	private static final RedkitOutcomes<RateLimitDecision> DECIDED = RedkitOutcomes
		.of((decision) -> decision.allowed() ? "allowed" : "denied");

	private static final RedkitOutcomes<RateLimitReservation> RESERVED = RedkitOutcomes
		.of((reservation) -> reservation.allowed() ? "allowed" : "denied");

	private final RedisScriptRunner runner;

	private final RateLimitRegistry registry;

	private final RateLimitFailurePolicy failurePolicy;

	private final ClusterSlotFanOut fanOut;

	private final Duration timeout;

	private final RedkitMetrics metrics;

	private final PermitSettlement settlement;

	private final RedkitObservations observations;

	private final LocalAllowances allowances;

	private final LocalBatchLifecycle lifecycle;

	/**
	 * Creates a rate limiter.
	 * @param runner runs the scripts
	 * @param keyspace builds the keys
	 * @param policies the named limits
	 * @param settings failure mode, Redis timeout and failure cooldown
	 * @param metrics records decisions
	 * @param observations where decisions are observed (as
	 * {@code redkit.ratelimit.decision}), {@link RedkitObservations#NONE} for nowhere
	 */
	public RedisRateLimiter(RedisScriptRunner runner, RedisKeyspace keyspace, Map<String, RateLimitPolicy> policies,
			RateLimitSettings settings, RedkitMetrics metrics, RedkitObservations observations) {
		this(runner, keyspace, policies, settings, metrics, observations, List.of());
	}

	/**
	 * Creates a rate limiter some of whose named limits are decided elsewhere.
	 * @param runner runs the scripts
	 * @param keyspace builds the keys
	 * @param policies the named limits
	 * @param settings failure mode, Redis timeout and failure cooldown
	 * @param metrics records decisions
	 * @param observations where decisions are observed (as
	 * {@code redkit.ratelimit.decision}), {@link RedkitObservations#NONE} for nowhere
	 * @param deciders decide the named limits they name in place of this limiter's
	 * scripts, each checked against the limit's policy
	 * @throws IllegalArgumentException when a decider cannot decide a limit it names
	 */
	public RedisRateLimiter(RedisScriptRunner runner, RedisKeyspace keyspace, Map<String, RateLimitPolicy> policies,
			RateLimitSettings settings, RedkitMetrics metrics, RedkitObservations observations,
			List<RateLimitDecider> deciders) {
		this(runner, keyspace, policies, settings, metrics, observations,
				new LocalAllowances.Sweep(System::nanoTime, LocalAllowances.PURGE_ABOVE));
		this.registry.decidedBy(deciders, policies);
	}

	/**
	 * Creates a rate limiter whose local allowances read this clock and forget idle
	 * identifiers above this many: for tests that make the sweep run often.
	 */
	RedisRateLimiter(RedisScriptRunner runner, RedisKeyspace keyspace, Map<String, RateLimitPolicy> policies,
			RateLimitSettings settings, RedkitMetrics metrics, RedkitObservations observations,
			LocalAllowances.Sweep sweep) {
		Assert.notNull(observations, "observations must not be null");
		this.runner = runner;
		this.registry = new RateLimitRegistry(keyspace, policies, settings.allowances());
		this.failurePolicy = new RateLimitFailurePolicy(settings, metrics);
		this.timeout = settings.timeout();
		this.metrics = metrics;
		this.observations = observations;
		PermitGiveBack giveBack = new PermitGiveBack(runner, settings.timeout(), metrics);
		this.fanOut = new ClusterSlotFanOut(runner, settings.timeout(), giveBack);
		this.settlement = new PermitSettlement(runner, settings.timeout(), giveBack, metrics, this.registry::decider,
				settings.localLimiter());
		this.allowances = new LocalAllowances((limit, keys, cost, left) -> decideOrFailAsync(limit, keys, cost, left),
				this.settlement, metrics, sweep.clock(), settings.timeout(), sweep.purgeAbove());
		this.lifecycle = this.allowances.lifecycle();
	}

	@Override
	public void start() {
		this.lifecycle.start();
	}

	/**
	 * Gives back what the local allowances hold unused, while the connections are still
	 * open: this stops before the connection factory does.
	 */
	@Override
	public void stop() {
		this.lifecycle.stop();
	}

	@Override
	public boolean isRunning() {
		return this.lifecycle.isRunning();
	}

	@Override
	public RateLimitDecision tryAcquire(String limitName, List<String> keys, int cost) {
		PreparedLimit limit = this.registry.named(limitName);
		LocalAllowance allowance = this.registry.allowance(limitName, keys);
		if (allowance != null) {
			return this.observations.observe(RateLimitObservationKind.DECISION, limitName,
					() -> RedisScriptRunner.join(this.allowances.acquire(limit, allowance, keys.get(0), cost)),
					DECIDED);
		}
		return tryAcquire(limit, keys, cost);
	}

	@Override
	public RateLimitDecision tryAcquire(String limitName, RateLimitPolicy policy, List<String> keys, int cost) {
		return tryAcquire(limitName, limitName, policy, keys, cost);
	}

	@Override
	public RateLimitDecision tryAcquire(String limitName, String limitId, RateLimitPolicy policy, List<String> keys,
			int cost) {
		return tryAcquire(this.registry.inline(limitName, limitId, policy), keys, cost);
	}

	@Override
	public CompletableFuture<RateLimitDecision> tryAcquireAsync(String limitName, List<String> keys, int cost) {
		PreparedLimit limit = this.registry.named(limitName);
		LocalAllowance allowance = this.registry.allowance(limitName, keys);
		if (allowance != null) {
			return this.observations.observeAsync(RateLimitObservationKind.DECISION, limitName,
					() -> this.allowances.acquire(limit, allowance, keys.get(0), cost), DECIDED);
		}
		return tryAcquireAsync(limit, keys, cost);
	}

	@Override
	public CompletableFuture<RateLimitDecision> tryAcquireAsync(String limitName, String limitId,
			RateLimitPolicy policy, List<String> keys, int cost) {
		return tryAcquireAsync(this.registry.inline(limitName, limitId, policy), keys, cost);
	}

	@Override
	public RateLimitReservation reserve(String limitName, List<String> keys, int estimate) {
		return reserve(this.registry.named(limitName), keys, estimate);
	}

	@Override
	public RateLimitReservation reserve(String limitName, String limitId, RateLimitPolicy policy, List<String> keys,
			int estimate) {
		return reserve(this.registry.inline(limitName, limitId, policy), keys, estimate);
	}

	@Override
	public CompletableFuture<RateLimitReservation> reserveAsync(String limitName, List<String> keys, int estimate) {
		return reserveAsync(this.registry.named(limitName), keys, estimate);
	}

	@Override
	public CompletableFuture<RateLimitReservation> reserveAsync(String limitName, String limitId,
			RateLimitPolicy policy, List<String> keys, int estimate) {
		return reserveAsync(this.registry.inline(limitName, limitId, policy), keys, estimate);
	}

	private RateLimitDecision tryAcquire(PreparedLimit limit, List<String> keys, int cost) {
		return this.observations.observe(RateLimitObservationKind.DECISION, limit.name(),
				() -> decideOrFail(limit, keys, cost).decision(), DECIDED);
	}

	private CompletableFuture<RateLimitDecision> tryAcquireAsync(PreparedLimit limit, List<String> keys, int cost) {
		return this.observations.observeAsync(RateLimitObservationKind.DECISION, limit.name(),
				() -> decideOrFailAsync(limit, keys, cost).thenApply(TakenPermits::decision), DECIDED);
	}

	private RateLimitReservation reserve(PreparedLimit limit, List<String> keys, int estimate) {
		return this.observations.observe(RateLimitObservationKind.DECISION, limit.name(),
				() -> this.settlement.reservation(decideOrFail(limit, keys, estimate)), RESERVED);
	}

	private CompletableFuture<RateLimitReservation> reserveAsync(PreparedLimit limit, List<String> keys, int estimate) {
		return this.observations.observeAsync(RateLimitObservationKind.DECISION, limit.name(),
				() -> decideOrFailAsync(limit, keys, estimate).thenApply(this.settlement::reservation), RESERVED);
	}

	private TakenPermits decideOrFail(PreparedLimit limit, List<String> keys, int cost) {
		long start = System.nanoTime();
		RateLimitDecision early = decideWithoutRedis(limit, keys, cost, start);
		if (early != null) {
			return TakenPermits.withoutRedis(limit, keys, cost, early);
		}
		try {
			return answered(limit.name(), start,
					RedisScriptRunner.await(decide(limit, keys, cost), this.timeout, limit.script().name()));
		}
		catch (DataAccessException ex) {
			return TakenPermits.withoutRedis(limit, keys, cost,
					this.failurePolicy.failedAfter(limit, keys, cost, start, ex));
		}
	}

	private CompletableFuture<TakenPermits> decideOrFailAsync(PreparedLimit limit, List<String> keys, int cost) {
		return decideOrFailAsync(limit, keys, cost, this.timeout.toNanos());
	}

	/**
	 * As {@link #decideOrFailAsync(PreparedLimit, List, int)}, waiting for Redis at most
	 * what is left of a call's timeout.
	 */
	private CompletableFuture<TakenPermits> decideOrFailAsync(PreparedLimit limit, List<String> keys, int cost,
			long timeoutNanos) {
		long start = System.nanoTime();
		RateLimitDecision early = decideWithoutRedis(limit, keys, cost, start);
		if (early != null) {
			return CompletableFuture.completedFuture(TakenPermits.withoutRedis(limit, keys, cost, early));
		}
		if (timeoutNanos <= 0) {
			// the call's time ran out while it waited for a batch another call was
			// taking: nothing is sent, as a script sent now would be counted once Redis
			// answers (a batch: permits no call is handed); that failed take started
			// the cooldown, if any
			try {
				return CompletableFuture.completedFuture(TakenPermits.withoutRedis(limit, keys, cost,
						this.failurePolicy.failed(limit, keys, cost, start, new QueryTimeoutException("Rate limit '"
								+ limit.name() + "': no time left of " + this.timeout.toMillis() + " ms for Redis"))));
			}
			catch (RuntimeException ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}
		return decide(limit, keys, cost).orTimeout(Math.min(timeoutNanos, this.timeout.toNanos()), TimeUnit.NANOSECONDS)
			.handle((taken, ex) -> (ex == null) ? answered(limit.name(), start, taken)
					: TakenPermits.withoutRedis(limit, keys, cost, this.failurePolicy.failedAfter(limit, keys, cost,
							start, this.failurePolicy.accessFailure(limit, ex))));
	}

	/**
	 * A decision that needs no Redis: a cost above the smallest limit, or the failure
	 * mode while cooling down.
	 */
	private @Nullable RateLimitDecision decideWithoutRedis(PreparedLimit limit, List<String> keys, int cost,
			long start) {
		String limitName = limit.name();
		Assert.notEmpty(keys, () -> "Rate limit '" + limitName + "' needs at least one key");
		// a blank key is refused whatever decides the call: Redis, the failure mode or a
		// decider
		for (String key : keys) {
			Assert.hasText(key, () -> "Rate limit '" + limitName + "': a key must not be null, empty or blank");
		}
		Assert.isTrue(cost >= 1, () -> "Rate limit '" + limitName + "': cost must be at least 1 (was " + cost + ")");
		if (cost > limit.smallestLimit()) {
			return record(limitName, start, refuseOverLimit(limit.policy(), cost));
		}
		if (this.failurePolicy.coolingDown(start)) {
			return this.failurePolicy.failed(limit, keys, cost, start, null);
		}
		return null;
	}

	/**
	 * Sends the decision to the limit's decider when a layer above decides it, to its
	 * script otherwise (for several identifiers, one per cluster slot).
	 */
	private CompletableFuture<TakenPermits> decide(PreparedLimit limit, List<String> keys, int cost) {
		RateLimitDecider decider = this.registry.decider(limit);
		if (decider != null) {
			byte[][] numbers = limit.arguments(cost);
			RateLimitCall call = new RateLimitCall(limit.name(), limit.policy(), keys, cost, numbers[0], numbers[1],
					this.timeout);
			return decider.decide(call).thenApply((reply) -> TakenPermits.decided(limit, call, reply));
		}
		if (keys.size() == 1) {
			// one identifier, one script: no slots to fan out to
			List<String> key = List.of(limit.key(keys.get(0)));
			return this.runner.executeAsync(limit.script(), this.timeout, key, limit.arguments(cost))
				.thenApply((reply) -> TakenPermits.of(limit, cost, List.of(key), List.of(reply)));
		}
		return this.fanOut.decide(limit, keys, cost);
	}

	private static RateLimitDecision refuseOverLimit(RateLimitPolicy policy, int cost) {
		RateLimitWindow window = policy.windows()
			.stream()
			.filter((candidate) -> candidate.limit() < cost)
			.findFirst()
			.orElseThrow();
		return new RateLimitDecision(false, 0, window.period(), window.period(), window, policy);
	}

	private TakenPermits answered(String limitName, long start, TakenPermits taken) {
		this.failurePolicy.recovered();
		record(limitName, start, taken.decision());
		return taken;
	}

	private RateLimitDecision record(String limitName, long start, RateLimitDecision decision) {
		RateLimitMeters.decided(this.metrics, limitName,
				decision.allowed() ? RateLimitMeters.ALLOWED : RateLimitMeters.DENIED, start);
		return decision;
	}

	/**
	 * The inline limits prepared so far, by id (for tests).
	 * @return a read-only view
	 */
	public Map<String, PreparedLimit> inlineLimits() {
		return this.registry.inlineLimits();
	}

	@Override
	public void define(String limitName, RateLimitPolicy policy) {
		if (this.registry.define(limitName, policy)) {
			this.allowances.redefined(limitName);
		}
	}

	@Override
	public Optional<RateLimitPolicy> policy(String limitName) {
		return this.registry.policy(limitName);
	}

}
