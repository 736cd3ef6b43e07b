package io.github.redkit.ratelimit.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.RedkitOutcomes;
import io.github.redkit.core.internal.FailureCooldown;
import io.github.redkit.core.internal.LocalBatchLifecycle;
import io.github.redkit.core.internal.MicrometerRedkitObservations;
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
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * The {@link RateLimiter} on Redis: it takes a call's limit from its
 * {@link RateLimitRegistry} (the {@code @RateLimited} interceptor looks it up once and
 * hands it over), serves it from a {@linkplain LocalAllowances local allowance} when the
 * limit has one, and otherwise sends it to the limit's decider or to the limit's script:
 * one identifier directly, several through the {@link ClusterSlotFanOut} (one script per
 * cluster slot). When Redis does not answer within the timeout, or failed less than the
 * failure cooldown ago, the {@link RateLimitFailurePolicy} decides
 * ({@linkplain RateLimitFailureMode failure mode}); a call Redis answers does not pass
 * it.
 */
public class RedisRateLimiter implements RateLimiter, SmartLifecycle {

	private static final RedkitOutcomes<RateLimitDecision> DECIDED = RedkitOutcomes
		.of((decision) -> decision.allowed() ? "allowed" : "denied");

	private static final RedkitOutcomes<RateLimitReservation> RESERVED = RedkitOutcomes
		.of((reservation) -> reservation.allowed() ? "allowed" : "denied");

	private final RedisScriptRunner runner;

	private final RateLimitRegistry registry;

	private final RateLimitFailurePolicy failurePolicy;

	private final FailureCooldown failureCooldown;

	// set before the first failure starts the cooldown, never cleared: until then a call
	// reads this field alone, and runs no code of the cooldown
	private volatile boolean failedOnce;

	// set once the failure mode decided a call, after it did: the next call Redis answers
	// tells the policy (a local limiter hands back), the others pass nothing of it
	private volatile boolean failedSinceAnswer;

	private final ClusterSlotFanOut fanOut;

	private final Duration timeout;

	private final RedkitMetrics metrics;

	private final PermitSettlement settlement;

	private final RedkitObservations observations;

	// the registry Redkit's own observations settled on (ObservationRegistry.NOOP for
	// none), read at start: a decision asks it whether anything observes, running no
	// code of the observations; null before, and for any other observations bean, which
	// MicrometerRedkitObservations.observeNothing answers per decision
	private volatile @Nullable ObservationRegistry settledObservationRegistry;

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
		this.failureCooldown = new FailureCooldown(settings.failureCooldown());
		this.failurePolicy = new RateLimitFailurePolicy(settings, this.failureCooldown, metrics);
		this.timeout = settings.timeout();
		this.metrics = metrics;
		this.observations = observations;
		PermitGiveBack giveBack = new PermitGiveBack(runner, settings.timeout(), metrics);
		this.fanOut = new ClusterSlotFanOut(runner, settings.timeout(), giveBack);
		this.settlement = new PermitSettlement(runner, settings.timeout(), giveBack, metrics, this.registry::decider,
				settings.localLimiter());
		this.allowances = new LocalAllowances(
				(limit, keys, cost, left) -> decideOrFailAsync(limit, this.registry.decider(limit), keys, cost, left),
				this.settlement, metrics, sweep.clock(), settings.timeout(), sweep.purgeAbove());
		this.lifecycle = this.allowances.lifecycle();
	}

	@Override
	public void start() {
		// every singleton exists: Redkit's own observations have settled
		this.settledObservationRegistry = MicrometerRedkitObservations.settledRegistry(this.observations);
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
		return tryAcquire(this.registry.named(limitName), keys, cost);
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
		return tryAcquireAsync(this.registry.named(limitName), keys, cost);
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

	/**
	 * Decides a call on a limit whose entry the caller holds (the interceptor looks it up
	 * once): the same decision as the methods that take a name.
	 * @param entry the limit's entry
	 * @param keys the identifiers
	 * @param cost the permits
	 * @return the decision
	 */
	RateLimitDecision tryAcquire(RateLimitRegistry.Entry entry, List<String> keys, int cost) {
		PreparedLimit limit = current(entry);
		if (observeNothing()) {
			// Redkit's own observations, and nothing observes: no function object is made
			// for the call (an application's own bean is always asked)
			return decideNow(entry, limit, keys, cost);
		}
		return this.observations.observe(RateLimitObservationKind.DECISION, limit.name(),
				() -> decideNow(entry, limit, keys, cost), DECIDED);
	}

	/**
	 * Whether the decision may skip the observations: Redkit's own, and nothing observes
	 * now (an application's own bean is always asked).
	 */
	private boolean observeNothing() {
		ObservationRegistry settled = this.settledObservationRegistry;
		return (settled != null) ? settled.isNoop() : MicrometerRedkitObservations.observeNothing(this.observations);
	}

	private RateLimitDecision decideNow(RateLimitRegistry.Entry entry, PreparedLimit limit, List<String> keys,
			int cost) {
		LocalAllowance allowance = (keys.size() == 1) ? entry.allowance() : null;
		if (allowance != null) {
			return RedisScriptRunner.join(this.allowances.acquire(limit, allowance, keys.get(0), cost));
		}
		return decision(limit, entry.decider(), keys, cost);
	}

	/**
	 * As {@link #tryAcquire(RateLimitRegistry.Entry, List, int)}, without blocking.
	 * @param entry the limit's entry
	 * @param keys the identifiers
	 * @param cost the permits
	 * @return the decision
	 */
	CompletableFuture<RateLimitDecision> tryAcquireAsync(RateLimitRegistry.Entry entry, List<String> keys, int cost) {
		PreparedLimit limit = current(entry);
		if (observeNothing()) {
			// Redkit's own observations, and nothing observes: no function object and no
			// stage to close an observation; a copy, so that a caller who cancels its
			// answer cancels neither the stage
			// that records the decision nor a future the call shares (a local batch)
			try {
				return decideLater(entry, limit, keys, cost).copy();
			}
			catch (RuntimeException ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}
		// a copy too: an application's own observations may hand the call's answer back
		// as it is, whose cancel would complete the stage that records the decision
		return this.observations
			.observeAsync(RateLimitObservationKind.DECISION, limit.name(), () -> decideLater(entry, limit, keys, cost),
					DECIDED)
			.copy();
	}

	private CompletableFuture<RateLimitDecision> decideLater(RateLimitRegistry.Entry entry, PreparedLimit limit,
			List<String> keys, int cost) {
		LocalAllowance allowance = (keys.size() == 1) ? entry.allowance() : null;
		if (allowance != null) {
			return this.allowances.acquire(limit, allowance, keys.get(0), cost);
		}
		RateLimitDecider decider = entry.decider();
		if (decider == null && keys.size() == 1) {
			return decisionAsync(limit, keys, cost);
		}
		return decideOrFailAsync(limit, decider, keys, cost, this.timeout.toNanos()).thenApply(TakenPermits::decision);
	}

	/**
	 * Decides a call on one identifier without blocking, as {@link #decideOrFailAsync}
	 * does with the whole timeout, reading the reply into the decision alone: nothing
	 * settles a call that only asks, so what a settlement would need is not kept.
	 */
	private CompletableFuture<RateLimitDecision> decisionAsync(PreparedLimit limit, List<String> keys, int cost) {
		long start = System.nanoTime();
		RateLimitDecision early = decideWithoutRedis(limit, keys, cost, start);
		if (early != null) {
			return CompletableFuture.completedFuture(early);
		}
		return this.runner
			.executeAsync(limit.script(), this.timeout, limit.encodedKey(keys.get(0)), limit.arguments(cost))
			.handle((reply, ex) -> (ex == null) ? answered(limit.name(), start, limit.decision(reply))
					: failed(limit, keys, cost, start, ex));
	}

	/**
	 * Reserves on a limit whose entry the caller holds: no local allowance serves a call
	 * that is settled.
	 * @param entry the limit's entry
	 * @param keys the identifiers
	 * @param estimate the permits taken now
	 * @return the reservation
	 */
	RateLimitReservation reserve(RateLimitRegistry.Entry entry, List<String> keys, int estimate) {
		PreparedLimit limit = current(entry);
		return this.observations.observe(RateLimitObservationKind.DECISION, limit.name(),
				() -> this.settlement.reservation(decideOrFail(limit, entry.decider(), keys, estimate)), RESERVED);
	}

	/**
	 * As {@link #reserve(RateLimitRegistry.Entry, List, int)}, without blocking.
	 * @param entry the limit's entry
	 * @param keys the identifiers
	 * @param estimate the permits taken now
	 * @return the reservation
	 */
	CompletableFuture<RateLimitReservation> reserveAsync(RateLimitRegistry.Entry entry, List<String> keys,
			int estimate) {
		PreparedLimit limit = current(entry);
		// a copy, as for a decision: a cancel must not skip making the reservation
		return this.observations
			.observeAsync(RateLimitObservationKind.DECISION, limit.name(),
					() -> decideOrFailAsync(limit, entry.decider(), keys, estimate, this.timeout.toNanos())
						.thenApply(this.settlement::reservation),
					RESERVED)
			.copy();
	}

	private static PreparedLimit current(RateLimitRegistry.Entry entry) {
		return Objects.requireNonNull(entry.current().get());
	}

	/**
	 * The registry, for the interceptor's one look-up of a limit.
	 * @return the registry
	 */
	RateLimitRegistry registry() {
		return this.registry;
	}

	private TakenPermits decideOrFail(PreparedLimit limit, @Nullable RateLimitDecider decider, List<String> keys,
			int cost) {
		long start = System.nanoTime();
		RateLimitDecision early = decideWithoutRedis(limit, keys, cost, start);
		if (early != null) {
			return TakenPermits.withoutRedis(limit, keys, cost, early);
		}
		try {
			return answered(limit.name(), start, decideWaiting(limit, decider, keys, cost));
		}
		catch (DataAccessException ex) {
			return TakenPermits.withoutRedis(limit, keys, cost, failed(limit, keys, cost, start, ex, true));
		}
	}

	/**
	 * Decides a call and waits for Redis at most the timeout. One identifier's script is
	 * awaited as it is sent, and its reply read into the decision, the only thing a
	 * blocking call keeps of it: the wait bounds it, and a timeout cancels it, so a
	 * script still waiting for a connection is not sent; a second timer in the runner, a
	 * stage to read the reply or what a settlement would need would only cost.
	 */
	private RateLimitDecision decision(PreparedLimit limit, @Nullable RateLimitDecider decider, List<String> keys,
			int cost) {
		if (decider != null || keys.size() > 1) {
			return decideOrFail(limit, decider, keys, cost).decision();
		}
		long start = System.nanoTime();
		RateLimitDecision early = decideWithoutRedis(limit, keys, cost, start);
		if (early != null) {
			return early;
		}
		byte[] reply;
		try {
			reply = awaitScript(limit, limit.encodedKey(keys.get(0)), cost);
		}
		catch (DataAccessException ex) {
			return failed(limit, keys, cost, start, ex, true);
		}
		return answered(limit.name(), start, limit.decision(reply));
	}

	/**
	 * Decides a call as {@link #decide} does, waiting for Redis at most the timeout; one
	 * identifier's script as {@link #decision} sends it.
	 */
	private TakenPermits decideWaiting(PreparedLimit limit, @Nullable RateLimitDecider decider, List<String> keys,
			int cost) {
		if (decider != null || keys.size() > 1) {
			return RedisScriptRunner.await(decide(limit, decider, keys, cost), this.timeout, limit.script().name());
		}
		String identifier = keys.get(0);
		return TakenPermits.ofScript(limit, cost, List.of(limit.key(identifier)),
				awaitScript(limit, limit.encodedKey(identifier), cost));
	}

	private byte[] awaitScript(PreparedLimit limit, byte[][] key, int cost) {
		// read before sending: nothing of the script runs on this thread once it is sent
		String name = limit.script().name();
		return RedisScriptRunner.await(this.runner.executeAsync(limit.script(), key, limit.arguments(cost)),
				this.timeout, name);
	}

	/**
	 * Decides a call without blocking, waiting for Redis at most what is left of the
	 * call's timeout.
	 */
	private CompletableFuture<TakenPermits> decideOrFailAsync(PreparedLimit limit, @Nullable RateLimitDecider decider,
			List<String> keys, int cost, long timeoutNanos) {
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
				QueryTimeoutException late = new QueryTimeoutException("Rate limit '" + limit.name()
						+ "': no time left of " + this.timeout.toMillis() + " ms for Redis");
				return CompletableFuture.completedFuture(
						TakenPermits.withoutRedis(limit, keys, cost, failed(limit, keys, cost, start, late, false)));
			}
			catch (RuntimeException ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}
		if (decider == null && keys.size() == 1 && timeoutNanos >= this.timeout.toNanos()) {
			// one script with the whole timeout is bounded by the runner already, and its
			// reply is read in the stage that records it: no second timer, no stage
			// between
			List<String> key = List.of(limit.key(keys.get(0)));
			return this.runner.executeAsync(limit.script(), this.timeout, key, limit.arguments(cost))
				.handle((reply, ex) -> (ex == null)
						? answered(limit.name(), start, TakenPermits.ofScript(limit, cost, key, reply))
						: TakenPermits.withoutRedis(limit, keys, cost, failed(limit, keys, cost, start, ex)));
		}
		// its follow-up (the failure mode) runs on the runner's threads, not on the JDK's
		// one timer
		return RedisScriptRunner
			.within(decide(limit, decider, keys, cost),
					Duration.ofNanos(Math.min(timeoutNanos, this.timeout.toNanos())))
			.handle((answer, ex) -> (ex == null) ? answered(limit.name(), start, answer)
					: TakenPermits.withoutRedis(limit, keys, cost, failed(limit, keys, cost, start, ex)));
	}

	/**
	 * The failure mode's decision of a call whose answer from Redis failed.
	 * @param failure how the answer failed (a timeout, Redis' failure, or a bug, which is
	 * thrown: no failure mode applies)
	 */
	private RateLimitDecision failed(PreparedLimit limit, List<String> keys, int cost, long start, Throwable failure) {
		return failed(limit, keys, cost, start, this.failurePolicy.accessFailure(limit, failure), true);
	}

	/**
	 * The failure mode's decision of a call Redis did not decide (or was not asked, while
	 * cooling down); the next call Redis answers tells the policy.
	 * @param cause why Redis did not decide, {@code null} while cooling down
	 * @param startsCooldown whether Redis just failed, which starts the cooldown
	 */
	private RateLimitDecision failed(PreparedLimit limit, List<String> keys, int cost, long start,
			@Nullable DataAccessException cause, boolean startsCooldown) {
		try {
			if (startsCooldown && cause != null) {
				// before the cooldown starts: a call that reads it unset runs as one that
				// read the cooldown before
				this.failedOnce = true;
				return this.failurePolicy.failedAfter(limit, keys, cost, start, cause);
			}
			return this.failurePolicy.failed(limit, keys, cost, start, cause);
		}
		finally {
			// after the policy decided: an answer that clears this before would miss a
			// local limiter's outage that began with this call
			this.failedSinceAnswer = true;
		}
	}

	/**
	 * A decision that needs no Redis: a cost above the smallest limit, or the failure
	 * mode while cooling down.
	 */
	private @Nullable RateLimitDecision decideWithoutRedis(PreparedLimit limit, List<String> keys, int cost,
			long start) {
		String limitName = limit.name();
		// checked without a message supplier: a capturing lambda per check and call
		// would be allocated even when the check passes
		if (keys.isEmpty()) {
			throw new IllegalArgumentException("Rate limit '" + limitName + "' needs at least one key");
		}
		// a blank key is refused whatever decides the call: Redis, the failure mode or a
		// decider
		for (int i = 0; i < keys.size(); i++) {
			if (!StringUtils.hasText(keys.get(i))) {
				throw new IllegalArgumentException(
						"Rate limit '" + limitName + "': a key must not be null, empty or blank");
			}
		}
		if (cost < 1) {
			throw new IllegalArgumentException(
					"Rate limit '" + limitName + "': cost must be at least 1 (was " + cost + ")");
		}
		if (cost > limit.smallestLimit()) {
			return record(limitName, start, refuseOverLimit(limit.policy(), cost));
		}
		if (this.failedOnce && this.failureCooldown.coolingDown(start)) {
			return failed(limit, keys, cost, start, null, false);
		}
		return null;
	}

	/**
	 * Sends the decision to the limit's decider when a layer above decides it, to its
	 * script otherwise (for several identifiers, one per cluster slot).
	 */
	private CompletableFuture<TakenPermits> decide(PreparedLimit limit, @Nullable RateLimitDecider decider,
			List<String> keys, int cost) {
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
				.thenApply((reply) -> TakenPermits.ofScript(limit, cost, key, reply));
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
		answered(limitName, start, taken.decision());
		return taken;
	}

	private RateLimitDecision answered(String limitName, long start, RateLimitDecision decision) {
		if (this.failedSinceAnswer) {
			answeredAfterFailure();
		}
		return record(limitName, start, decision);
	}

	/**
	 * Redis answers again after the failure mode decided: a local limiter hands back.
	 */
	private void answeredAfterFailure() {
		this.failedSinceAnswer = false;
		this.failurePolicy.recovered();
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
