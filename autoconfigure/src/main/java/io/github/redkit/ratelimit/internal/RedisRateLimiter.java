package io.github.redkit.ratelimit.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.RedkitOutcomes;
import io.github.redkit.core.internal.FailureCooldown;
import io.github.redkit.core.internal.LocalBatchLifecycle;
import io.github.redkit.core.internal.LuaScript;
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
import io.github.redkit.ratelimit.RateLimiterUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.util.Assert;

/**
 * The {@link RateLimiter} on Redis. On a standalone server (or Sentinel) one script
 * decides every window of every identifier; on a cluster the identifiers are grouped by
 * slot, the groups are decided concurrently, and what a group took is given back when
 * another group refuses the call or does not answer in time (see {@link PermitGiveBack}).
 * <p>
 * When Redis does not answer within the timeout, the {@linkplain RateLimitFailureMode
 * failure mode} applies, and keeps applying without asking Redis for the failure
 * cooldown, so that an outage does not add the timeout to every call; in the local
 * failure mode a {@link LocalRateLimiter} decides meanwhile.
 */
public class RedisRateLimiter implements RateLimiter, SmartLifecycle {

	private static final Log logger = LogFactory.getLog(RedisRateLimiter.class);

	private static final RedkitOutcomes<RateLimitDecision> DECIDED = RedkitOutcomes
		.of((decision) -> decision.allowed() ? "allowed" : "denied");

	private static final RedkitOutcomes<RateLimitReservation> RESERVED = RedkitOutcomes
		.of((reservation) -> reservation.allowed() ? "allowed" : "denied");

	private final RedisScriptRunner runner;

	private final RedisKeyspace keyspace;

	private final Map<String, PreparedLimit> limits = new ConcurrentHashMap<>();

	private final Map<String, PreparedLimit> inlineLimits = new ConcurrentHashMap<>();

	private final RateLimitFailureMode failureMode;

	private final Duration timeout;

	private final FailureCooldown failureCooldown;

	private final RedkitMetrics metrics;

	private final boolean cluster;

	private final PermitGiveBack giveBack;

	private final PermitSettlement settlement;

	private final RedkitObservations observations;

	private final @Nullable LocalRateLimiter localLimiter;

	private final LocalAllowances allowances;

	private final LocalBatchLifecycle lifecycle;

	// the deciders of the named limits some layer above decides (several regions)
	private final Map<String, RateLimitDecider> deciders = new ConcurrentHashMap<>();

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
		for (RateLimitDecider decider : deciders) {
			for (String name : decider.limitNames()) {
				decider.check(name, policies.get(name));
				this.deciders.put(name, decider);
			}
		}
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
		this.keyspace = keyspace;
		policies.forEach((name, policy) -> this.limits.put(name, PreparedLimit.of(name, policy, keyspace)));
		this.failureMode = settings.failureMode();
		this.timeout = settings.timeout();
		this.failureCooldown = new FailureCooldown(settings.failureCooldown());
		this.localLimiter = settings.localLimiter();
		this.metrics = metrics;
		this.observations = observations;
		this.cluster = runner.isCluster();
		this.giveBack = new PermitGiveBack(runner, settings.timeout(), metrics);
		this.settlement = new PermitSettlement(runner, settings.timeout(), this.giveBack, metrics, this.deciders::get,
				this.localLimiter);
		this.allowances = new LocalAllowances(settings.allowances(),
				(limit, keys, cost, left) -> decideOrFailAsync(limit, keys, cost, left), this.settlement, metrics,
				sweep.clock(), settings.timeout(), sweep.purgeAbove());
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
		PreparedLimit limit = named(limitName);
		LocalAllowance allowance = this.allowances.of(limitName, keys);
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
		return tryAcquire(inline(limitName, limitId, policy), keys, cost);
	}

	@Override
	public CompletableFuture<RateLimitDecision> tryAcquireAsync(String limitName, List<String> keys, int cost) {
		PreparedLimit limit = named(limitName);
		LocalAllowance allowance = this.allowances.of(limitName, keys);
		if (allowance != null) {
			return this.observations.observeAsync(RateLimitObservationKind.DECISION, limitName,
					() -> this.allowances.acquire(limit, allowance, keys.get(0), cost), DECIDED);
		}
		return tryAcquireAsync(limit, keys, cost);
	}

	@Override
	public CompletableFuture<RateLimitDecision> tryAcquireAsync(String limitName, String limitId,
			RateLimitPolicy policy, List<String> keys, int cost) {
		return tryAcquireAsync(inline(limitName, limitId, policy), keys, cost);
	}

	@Override
	public RateLimitReservation reserve(String limitName, List<String> keys, int estimate) {
		return reserve(named(limitName), keys, estimate);
	}

	@Override
	public RateLimitReservation reserve(String limitName, String limitId, RateLimitPolicy policy, List<String> keys,
			int estimate) {
		return reserve(inline(limitName, limitId, policy), keys, estimate);
	}

	@Override
	public CompletableFuture<RateLimitReservation> reserveAsync(String limitName, List<String> keys, int estimate) {
		return reserveAsync(named(limitName), keys, estimate);
	}

	@Override
	public CompletableFuture<RateLimitReservation> reserveAsync(String limitName, String limitId,
			RateLimitPolicy policy, List<String> keys, int estimate) {
		return reserveAsync(inline(limitName, limitId, policy), keys, estimate);
	}

	private PreparedLimit named(String limitName) {
		PreparedLimit limit = this.limits.get(limitName);
		if (limit == null) {
			throw new IllegalArgumentException("No rate limit named '" + limitName
					+ "': configure it under redkit.rate-limit.limits or define it; known limits: "
					+ this.limits.keySet());
		}
		return limit;
	}

	private PreparedLimit inline(String limitName, String limitId, RateLimitPolicy policy) {
		Assert.hasText(limitName, "A rate limit needs a name");
		Assert.hasText(limitId, "A rate limit needs an id");
		// inline policies (@RateLimited(limit = ..., period = ...)) come with every call:
		// prepared once per id, again only when the policy changes
		PreparedLimit limit = this.inlineLimits.get(limitId);
		if (limit == null || (limit.policy() != policy && !limit.policy().equals(policy))
				|| !limit.name().equals(limitName)) {
			limit = PreparedLimit.of(limitName, limitId, policy, this.keyspace);
			this.inlineLimits.put(limitId, limit);
		}
		return limit;
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
			return TakenPermits.withoutRedis(limit, keys, cost, failedAfter(limit, keys, cost, start, ex));
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
						failed(limit, keys, cost, start, new QueryTimeoutException("Rate limit '" + limit.name()
								+ "': no time left of " + this.timeout.toMillis() + " ms for Redis"))));
			}
			catch (RuntimeException ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}
		return decide(limit, keys, cost).orTimeout(Math.min(timeoutNanos, this.timeout.toNanos()), TimeUnit.NANOSECONDS)
			.handle((taken, ex) -> (ex == null) ? answered(limit.name(), start, taken) : TakenPermits
				.withoutRedis(limit, keys, cost, failedAfter(limit, keys, cost, start, accessFailure(limit, ex))));
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
		if (this.failureCooldown.coolingDown(start)) {
			return failed(limit, keys, cost, start, null);
		}
		return null;
	}

	private RateLimitDecision failedAfter(PreparedLimit limit, List<String> keys, int cost, long start,
			DataAccessException ex) {
		this.failureCooldown.failed();
		return failed(limit, keys, cost, start, ex);
	}

	private DataAccessException accessFailure(PreparedLimit limit, Throwable failure) {
		Throwable ex = RedisScriptRunner.unwrap(failure);
		if (ex instanceof DataAccessException dataAccess) {
			return dataAccess;
		}
		if (ex instanceof TimeoutException) {
			return new QueryTimeoutException(
					"Redis did not answer " + limit.script().name() + " within " + this.timeout.toMillis() + " ms", ex);
		}
		// not a Redis failure (a bug): no failure mode applies
		throw (ex instanceof RuntimeException runtime) ? runtime : new CompletionException(ex);
	}

	/**
	 * Sends the decision: one script per cluster slot, the slots concurrently. When
	 * several slots do not all answer in time, what the ones that allowed took is given
	 * back whenever they answer.
	 */
	private CompletableFuture<TakenPermits> decide(PreparedLimit limit, List<String> keys, int cost) {
		RateLimitDecider decider = this.deciders.get(limit.name());
		if (decider != null && this.limits.get(limit.name()) == limit) {
			byte[][] numbers = limit.arguments(cost);
			RateLimitCall call = new RateLimitCall(limit.name(), limit.policy(), keys, cost, numbers[0], numbers[1],
					this.timeout);
			return decider.decide(call).thenApply((reply) -> TakenPermits.decided(limit, call, reply));
		}
		byte[][] args = limit.arguments(cost);
		LuaScript<byte[]> script = limit.script();
		if (keys.size() == 1) {
			List<String> key = List.of(limit.key(keys.get(0)));
			return this.runner.executeAsync(script, this.timeout, key, args)
				.thenApply((reply) -> TakenPermits.of(limit, cost, List.of(key), List.of(reply)));
		}
		List<List<String>> groups = groupBySlot(limit, keys);
		if (groups.size() == 1) {
			return this.runner.executeAsync(script, this.timeout, groups.get(0), args)
				.thenApply((reply) -> TakenPermits.of(limit, cost, groups, List.of(reply)));
		}
		List<CompletableFuture<byte[]>> answers = new ArrayList<>(groups.size());
		for (List<String> group : groups) {
			// no timeout on the call itself: a slot's late answer is what tells whether
			// it took permits to give back
			answers.add(this.runner.executeAsync(script, group, args));
		}
		// settled once: by every slot's answer, or by a failure, a timeout or the caller
		// giving up, after which every slot that took permits gives them back whenever
		// it answers
		AtomicBoolean settled = new AtomicBoolean();
		CompletableFuture<TakenPermits> decision = new CompletableFuture<>();
		CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).whenComplete((all, ex) -> {
			if (ex != null) {
				decision.completeExceptionally(ex);
			}
			else if (settled.compareAndSet(false, true)) {
				try {
					List<byte[]> replies = answers.stream().map(CompletableFuture::join).toList();
					decision.complete(new TakenPermits(limit, cost, combine(limit, groups, replies, cost), groups,
							replies, null));
				}
				catch (RuntimeException | Error failure) {
					decision.completeExceptionally(failure);
				}
			}
		});
		decision.whenComplete((result, ex) -> {
			if (ex != null && settled.compareAndSet(false, true)) {
				for (int i = 0; i < answers.size(); i++) {
					List<String> group = groups.get(i);
					answers.get(i).thenAccept((reply) -> {
						if (limit.decision(reply).allowed()) {
							this.giveBack.giveBack(limit, group, cost, reply);
						}
					});
				}
			}
		});
		return decision;
	}

	private RateLimitDecision combine(PreparedLimit limit, List<List<String>> groups, List<byte[]> replies, int cost) {
		List<RateLimitDecision> decisions = replies.stream().map(limit::decision).toList();
		boolean refused = decisions.stream().anyMatch((decision) -> !decision.allowed());
		RateLimitDecision result = decisions.get(0);
		Set<RateLimitWindow> exceeded = new LinkedHashSet<>();
		for (int i = 0; i < decisions.size(); i++) {
			RateLimitDecision decision = decisions.get(i);
			exceeded.addAll(decision.exceeded());
			if (!refused) {
				result = (decision.remaining() < result.remaining()) ? decision : result;
			}
			else if (decision.allowed()) {
				this.giveBack.giveBack(limit, groups.get(i), cost, replies.get(i));
			}
			else if (result.allowed() || decision.retryAfter().compareTo(result.retryAfter()) > 0) {
				result = decision;
			}
		}
		if (!refused) {
			return result;
		}
		// every window that refused on any slot, in the policy's order
		List<RateLimitWindow> inOrder = limit.policy().windows().stream().filter(exceeded::contains).toList();
		return new RateLimitDecision(false, result.remaining(), result.retryAfter(), result.resetAfter(),
				result.window(), result.policy(), inOrder, result.decidedAt());
	}

	private List<List<String>> groupBySlot(PreparedLimit limit, List<String> identifiers) {
		Map<Integer, List<String>> groups = new LinkedHashMap<>();
		for (String identifier : identifiers) {
			String key = limit.key(identifier);
			int slot = this.cluster ? ClusterSlotHashUtil.calculateSlot(key) : 0;
			groups.computeIfAbsent(slot, (s) -> new ArrayList<>()).add(key);
		}
		return new ArrayList<>(groups.values());
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
		LocalRateLimiter local = this.localLimiter;
		if (local != null) {
			local.recovered();
		}
		record(limitName, start, taken.decision());
		return taken;
	}

	private RateLimitDecision record(String limitName, long start, RateLimitDecision decision) {
		measure(limitName, decision.allowed() ? RateLimitMeters.ALLOWED : RateLimitMeters.DENIED, start);
		return decision;
	}

	private void measure(String limitName, String outcome, long start) {
		this.metrics.increment(RateLimitMeters.DECISIONS, "limit", limitName, "outcome", outcome);
		this.metrics.record(RateLimitMeters.DURATION, System.nanoTime() - start, "limit", limitName);
	}

	private RateLimitDecision failed(PreparedLimit limit, List<String> keys, int cost, long start,
			@Nullable DataAccessException cause) {
		String limitName = limit.name();
		if (cause != null) {
			logger.warn("Rate limit '" + limitName + "' could not be decided (failure mode " + this.failureMode + "): "
					+ cause.getMessage());
		}
		LocalRateLimiter local = this.localLimiter;
		if (this.failureMode == RateLimitFailureMode.LOCAL && local != null) {
			RateLimitDecision decision = local.decide(limit, keys, cost);
			measure(limitName, decision.allowed() ? RateLimitMeters.LOCAL_ALLOWED : RateLimitMeters.LOCAL_DENIED,
					start);
			return decision;
		}
		if (this.failureMode == RateLimitFailureMode.ALLOW) {
			measure(limitName, RateLimitMeters.FAILED_OPEN, start);
			return RateLimitDecision.failedOpen(limit.policy());
		}
		measure(limitName, RateLimitMeters.FAILED_CLOSED, start);
		throw new RateLimiterUnavailableException(limitName, this.failureCooldown.duration(), cause);
	}

	/**
	 * The inline limits prepared so far, by id (for tests).
	 * @return a read-only view
	 */
	public Map<String, PreparedLimit> inlineLimits() {
		return Collections.unmodifiableMap(this.inlineLimits);
	}

	@Override
	public void define(String limitName, RateLimitPolicy policy) {
		PreparedLimit limit = PreparedLimit.of(limitName, policy, this.keyspace);
		RateLimitDecider decider = this.deciders.get(limitName);
		if (decider != null) {
			decider.check(limitName, policy);
		}
		LocalAllowance allowance = this.allowances.of(limitName);
		if (allowance != null) {
			// checked as start-up checks the configured limits: a batch must not overrun
			// a window it was not counted in
			allowance.check("Rate limit '" + limitName + "': its local allowance (redkit.rate-limit.limits." + limitName
					+ ".local-allowance)", policy, decider != null);
		}
		this.limits.put(limitName, limit);
		if (allowance != null) {
			this.allowances.redefined(limitName);
		}
	}

	@Override
	public Optional<RateLimitPolicy> policy(String limitName) {
		return Optional.ofNullable(this.limits.get(limitName)).map(PreparedLimit::policy);
	}

}
