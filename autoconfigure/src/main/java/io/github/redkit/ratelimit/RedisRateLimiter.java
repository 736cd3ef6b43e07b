package io.github.redkit.ratelimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redkit.core.LuaScript;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedisScriptRunner;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservation;
import io.github.redkit.core.RedkitObservationKind;
import io.github.redkit.core.RedkitObservations;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
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
 * cooldown, so that an outage does not add the timeout to every call.
 */
public class RedisRateLimiter implements RateLimiter {

	private static final Log logger = LogFactory.getLog(RedisRateLimiter.class);

	private static final Map<RateLimitAlgorithm, LuaScript<byte[]>> SCRIPTS = new EnumMap<>(RateLimitAlgorithm.class);

	static {
		for (RateLimitAlgorithm algorithm : RateLimitAlgorithm.values()) {
			SCRIPTS.put(algorithm, LuaScript.load(algorithm.scriptName(), byte[].class));
		}
	}

	private final RedisScriptRunner runner;

	private final RedisKeyspace keyspace;

	private final Map<String, PreparedLimit> limits = new ConcurrentHashMap<>();

	private final Map<String, PreparedLimit> inlineLimits = new ConcurrentHashMap<>();

	private final RateLimitFailureMode failureMode;

	private final Duration timeout;

	private final Duration failureCooldown;

	private final RedkitMetrics metrics;

	private final boolean cluster;

	private final PermitGiveBack giveBack;

	private volatile long coolingDownUntil;

	private RedkitObservations observations = RedkitObservations.NONE;

	/**
	 * Creates a rate limiter.
	 * @param runner runs the scripts
	 * @param keyspace builds the keys
	 * @param policies the named limits
	 * @param failureMode what to do when Redis cannot be reached
	 * @param timeout how long a decision waits for Redis
	 * @param failureCooldown how long the failure mode applies without asking Redis after
	 * a failure
	 * @param metrics records decisions
	 */
	public RedisRateLimiter(RedisScriptRunner runner, RedisKeyspace keyspace, Map<String, RateLimitPolicy> policies,
			RateLimitFailureMode failureMode, Duration timeout, Duration failureCooldown, RedkitMetrics metrics) {
		this.runner = runner;
		this.keyspace = keyspace;
		policies.forEach((name, policy) -> this.limits.put(name, PreparedLimit.of(name, policy, keyspace)));
		this.failureMode = failureMode;
		this.timeout = timeout;
		this.failureCooldown = failureCooldown;
		this.metrics = metrics;
		this.cluster = runner.isCluster();
		this.giveBack = new PermitGiveBack(runner, timeout, metrics);
		this.coolingDownUntil = System.nanoTime();
	}

	/**
	 * Sets where decisions are observed (as {@code redkit.ratelimit.decision}).
	 * @param observations the observations, {@link RedkitObservations#NONE} by default
	 */
	public void setObservations(RedkitObservations observations) {
		Assert.notNull(observations, "observations must not be null");
		this.observations = observations;
	}

	@Override
	public RateLimitDecision tryAcquire(String limitName, List<String> keys, int cost) {
		PreparedLimit limit = this.limits.get(limitName);
		if (limit == null) {
			throw new IllegalArgumentException("No rate limit named '" + limitName
					+ "': configure it under redkit.rate-limit.limits or define it; known limits: "
					+ this.limits.keySet());
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
		return tryAcquire(limit, keys, cost);
	}

	private RateLimitDecision tryAcquire(PreparedLimit limit, List<String> keys, int cost) {
		try (RedkitObservation observation = this.observations.start(RedkitObservationKind.RATE_LIMIT_DECISION,
				limit.name())) {
			try {
				RateLimitDecision decision = decideOrFail(limit, keys, cost);
				observation.outcome(decision.allowed() ? "allowed" : "denied");
				return decision;
			}
			catch (RuntimeException ex) {
				observation.outcome("failed");
				observation.error(ex);
				throw ex;
			}
		}
	}

	private RateLimitDecision decideOrFail(PreparedLimit limit, List<String> keys, int cost) {
		String limitName = limit.name();
		RateLimitPolicy policy = limit.policy();
		Assert.notEmpty(keys, () -> "Rate limit '" + limitName + "' needs at least one key");
		Assert.isTrue(cost >= 1, () -> "Rate limit '" + limitName + "': cost must be at least 1 (was " + cost + ")");
		long start = System.nanoTime();
		if (cost > limit.smallestLimit()) {
			return record(limitName, start, refuseOverLimit(policy, cost));
		}
		if (start - this.coolingDownUntil < 0) {
			return failed(limit, start, null);
		}
		try {
			return record(limitName, start, decide(limit, keys, cost));
		}
		catch (DataAccessException ex) {
			this.coolingDownUntil = System.nanoTime() + this.failureCooldown.toNanos();
			return failed(limit, start, ex);
		}
	}

	private RateLimitDecision decide(PreparedLimit limit, List<String> keys, int cost) {
		byte[][] args = limit.arguments(cost);
		LuaScript<byte[]> script = script(limit.policy().algorithm());
		if (keys.size() == 1) {
			return limit.decision(this.runner.execute(script, this.timeout, List.of(limit.key(keys.get(0))), args));
		}
		List<List<String>> groups = groupBySlot(limit, keys);
		if (groups.size() == 1) {
			return limit.decision(this.runner.execute(script, this.timeout, groups.get(0), args));
		}
		List<CompletableFuture<byte[]>> answers = new ArrayList<>(groups.size());
		for (List<String> group : groups) {
			answers.add(this.runner.executeAsync(script, group, args));
		}
		long deadline = System.nanoTime() + this.timeout.toNanos();
		List<byte[]> replies = new ArrayList<>(groups.size());
		try {
			for (CompletableFuture<byte[]> answer : answers) {
				Duration left = Duration.ofNanos(Math.max(deadline - System.nanoTime(), 0));
				// a copy is awaited (and cancelled on timeout) so that a late answer
				// still arrives below
				replies.add(RedisScriptRunner.await(answer.copy(), left, script.name()));
			}
		}
		catch (DataAccessException ex) {
			// undecided: every slot that took permits gives them back, whenever it
			// answers
			for (int i = 0; i < answers.size(); i++) {
				List<String> group = groups.get(i);
				answers.get(i).thenAcceptAsync((reply) -> {
					if (limit.decision(reply).allowed()) {
						this.giveBack.giveBack(limit, group, cost, reply);
					}
				});
			}
			throw ex;
		}
		return combine(limit, groups, replies, cost);
	}

	private static LuaScript<byte[]> script(RateLimitAlgorithm algorithm) {
		LuaScript<byte[]> script = SCRIPTS.get(algorithm);
		if (script == null) {
			throw new IllegalStateException("No script for " + algorithm);
		}
		return script;
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

	private RateLimitDecision record(String limitName, long start, RateLimitDecision decision) {
		measure(limitName, decision.allowed() ? RateLimitMeters.ALLOWED : RateLimitMeters.DENIED, start);
		return decision;
	}

	private void measure(String limitName, String outcome, long start) {
		this.metrics.increment(RateLimitMeters.DECISIONS, "limit", limitName, "outcome", outcome);
		this.metrics.record(RateLimitMeters.DURATION, System.nanoTime() - start, "limit", limitName);
	}

	private RateLimitDecision failed(PreparedLimit limit, long start, @Nullable DataAccessException cause) {
		String limitName = limit.name();
		if (cause != null) {
			logger.warn("Rate limit '" + limitName + "' could not be decided (failure mode " + this.failureMode + "): "
					+ cause.getMessage());
		}
		if (this.failureMode == RateLimitFailureMode.ALLOW) {
			measure(limitName, RateLimitMeters.FAILED_OPEN, start);
			return RateLimitDecision.failedOpen(limit.policy());
		}
		measure(limitName, RateLimitMeters.FAILED_CLOSED, start);
		throw new RateLimiterUnavailableException(limitName, this.failureCooldown, cause);
	}

	/**
	 * The inline limits prepared so far, by id (for tests).
	 * @return a read-only view
	 */
	Map<String, PreparedLimit> inlineLimits() {
		return Collections.unmodifiableMap(this.inlineLimits);
	}

	@Override
	public void define(String limitName, RateLimitPolicy policy) {
		this.limits.put(limitName, PreparedLimit.of(limitName, policy, this.keyspace));
	}

	@Override
	public Optional<RateLimitPolicy> policy(String limitName) {
		return Optional.ofNullable(this.limits.get(limitName)).map(PreparedLimit::policy);
	}

}
