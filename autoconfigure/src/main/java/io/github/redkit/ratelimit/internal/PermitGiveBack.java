package io.github.redkit.ratelimit.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitScriptException;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.ratelimit.RateLimitAlgorithm;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.Assert;

/**
 * Gives back the permits that some cluster slots took for a call that another slot
 * refused or did not decide. A give-back is tried up to {@value #ATTEMPTS} times, each
 * attempt waiting at most the rate limiter's timeout, 50, 100 then 200 ms apart; it is
 * applied at most once however many attempts reach Redis (a marker key next to the
 * identifiers remembers it for {@link #MARKER_TTL}), and its end is counted as
 * {@code given-back} or {@code failed}.
 */
public final class PermitGiveBack {

	/** How many times a give-back is sent before it counts as failed. */
	static final int ATTEMPTS = 4;

	/** How long an applied give-back is remembered, so that a late attempt is ignored. */
	static final Duration MARKER_TTL = Duration.ofMinutes(5);

	private static final long FIRST_BACKOFF_MILLIS = 50;

	private static final Log logger = LogFactory.getLog(PermitGiveBack.class);

	private static final Map<RateLimitAlgorithm, LuaScript<Long>> REFUNDS = new EnumMap<>(RateLimitAlgorithm.class);

	static {
		for (RateLimitAlgorithm algorithm : RateLimitAlgorithm.values()) {
			REFUNDS.put(algorithm, LuaScript.load(AlgorithmDescriptor.of(algorithm).refundScriptName(), Long.class));
		}
	}

	private final RedisScriptRunner runner;

	private final Duration attemptTimeout;

	private final RedkitMetrics metrics;

	/**
	 * Creates a give-back.
	 * @param runner runs the refund script
	 * @param attemptTimeout how long one attempt waits for Redis
	 * @param metrics counts the outcomes
	 */
	public PermitGiveBack(RedisScriptRunner runner, Duration attemptTimeout, RedkitMetrics metrics) {
		this.runner = runner;
		this.attemptTimeout = attemptTimeout;
		this.metrics = metrics;
	}

	/**
	 * Gives back, without blocking the caller, the permits a call took on keys of one
	 * slot.
	 * @param limit the limit
	 * @param keys the keys of one slot that allowed the call
	 * @param cost the permits the call took on each
	 * @param reply the reply of the decision that took them
	 * @return completes when the give-back is confirmed ({@code true}) or given up
	 */
	public CompletableFuture<Boolean> giveBack(PreparedLimit limit, List<String> keys, int cost, byte[] reply) {
		List<String> scriptKeys = new ArrayList<>(keys.size() + 1);
		scriptKeys.addAll(keys);
		// the marker extends the first key, so it keeps its hash tag and its slot
		scriptKeys.add(keys.get(0) + ":refund:" + RandomIds.next());
		CompletableFuture<Boolean> done = new CompletableFuture<>();
		// the first attempt is sent before the caller learns of the refusal, so that its
		// next call on the same connection finds the permits back
		attempt(limit, scriptKeys, limit.refundArguments(cost, MARKER_TTL, reply), 1, done);
		return done;
	}

	private void attempt(PreparedLimit limit, List<String> keys, byte[][] args, int attempt,
			CompletableFuture<Boolean> done) {
		LuaScript<Long> refund = REFUNDS.get(limit.policy().algorithm());
		Assert.state(refund != null, () -> "No refund script for " + limit.policy().algorithm());
		this.runner.executeAsync(refund, keys, args)
			.orTimeout(this.attemptTimeout.toNanos(), TimeUnit.NANOSECONDS)
			.whenComplete((reply, ex) -> {
				if (ex == null) {
					this.metrics.increment(RateLimitMeters.REFUNDS, "limit", limit.name(), "outcome",
							RateLimitMeters.GIVEN_BACK);
					done.complete(true);
					return;
				}
				Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
				// a script error would fail the same way again
				if (attempt >= ATTEMPTS || cause instanceof RedkitScriptException) {
					logger
						.warn("Rate limit '" + limit.name() + "': could not give back the permits of a refused call on "
								+ keys.subList(0, keys.size() - 1) + " after " + attempt + " attempt(s)", cause);
					this.metrics.increment(RateLimitMeters.REFUNDS, "limit", limit.name(), "outcome",
							RateLimitMeters.FAILED);
					done.complete(false);
					return;
				}
				long backoff = FIRST_BACKOFF_MILLIS << (attempt - 1);
				CompletableFuture.delayedExecutor(backoff, TimeUnit.MILLISECONDS)
					.execute(() -> attempt(limit, keys, args, attempt + 1, done));
			});
	}

}
