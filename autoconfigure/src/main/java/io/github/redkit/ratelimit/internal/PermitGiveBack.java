package io.github.redkit.ratelimit.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitScriptException;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.core.internal.ReplayWindow;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Gives back the permits that some cluster slots took for a call that another slot
 * refused or did not decide. A give-back is tried up to {@value #ATTEMPTS} times, each
 * attempt waiting at most the rate limiter's timeout, 50, 100 then 200 ms apart; it is
 * applied at most once however many attempts reach Redis (a marker key next to the
 * identifiers remembers it for {@link #markerTtl}), and its end is counted as
 * {@code given-back} or {@code failed}.
 */
public final class PermitGiveBack {

	/** How many times a give-back is sent before it counts as failed. */
	static final int ATTEMPTS = ReplayWindow.GIVE_BACK_ATTEMPTS;

	/** The least an applied give-back is remembered ({@link #markerTtl}). */
	static final Duration MARKER_TTL = ReplayWindow.GIVE_BACK_MARKER_FLOOR;

	private static final long FIRST_BACKOFF_MILLIS = ReplayWindow.GIVE_BACK_FIRST_BACKOFF_MILLIS;

	private static final Log logger = LogFactory.getLog(PermitGiveBack.class);

	private final RedisScriptRunner runner;

	private final Duration attemptTimeout;

	private final RedkitMetrics metrics;

	private final BiConsumer<Long, Runnable> delayer;

	private final Duration markerTtl;

	/**
	 * Creates a give-back.
	 * @param runner runs the refund script
	 * @param attemptTimeout how long one attempt waits for Redis
	 * @param metrics counts the outcomes
	 */
	public PermitGiveBack(RedisScriptRunner runner, Duration attemptTimeout, RedkitMetrics metrics) {
		this(runner, attemptTimeout, metrics,
				(millis, retry) -> CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS).execute(retry));
	}

	/**
	 * Creates a give-back that schedules its retries with {@code delayer}.
	 * @param delayer runs a retry after the given milliseconds; may throw when it can no
	 * longer schedule one
	 */
	PermitGiveBack(RedisScriptRunner runner, Duration attemptTimeout, RedkitMetrics metrics,
			BiConsumer<Long, Runnable> delayer) {
		this.runner = runner;
		this.attemptTimeout = attemptTimeout;
		this.metrics = metrics;
		this.delayer = delayer;
		this.markerTtl = markerTtl(ReplayWindow.commandTimeout(runner.connectionFactory()), attemptTimeout);
	}

	/**
	 * How long an applied give-back is remembered: {@link ReplayWindow#giveBackMarker},
	 * shared with the global refund of the regions.
	 * @param commandTimeout the connection's command timeout
	 * @param attemptTimeout how long one attempt waits for Redis
	 * @return how long the marker is kept
	 */
	public static Duration markerTtl(Duration commandTimeout, Duration attemptTimeout) {
		return ReplayWindow.giveBackMarker(commandTimeout, attemptTimeout);
	}

	/**
	 * Gives back, without blocking the caller, the permits a call took on keys of one
	 * slot.
	 * @param limit the limit
	 * @param keys the keys of one slot that allowed the call
	 * @param cost the permits the call took on each
	 * @param reply the reply of the decision that took them
	 * @return completes when the give-back is confirmed ({@code true}) or given up
	 * ({@code false}); never exceptionally
	 */
	public CompletableFuture<Boolean> giveBack(PreparedLimit limit, List<String> keys, int cost, byte[] reply) {
		List<String> scriptKeys = new ArrayList<>(keys.size() + 1);
		scriptKeys.addAll(keys);
		// the marker extends the first key, so it keeps its hash tag and its slot
		scriptKeys.add(keys.get(0) + ":refund:" + RandomIds.next());
		LuaScript<Long> refund = limit.refundScript();
		byte[][] args = limit.refundArguments(cost, this.markerTtl, reply);
		// the first attempt is sent before the caller learns of the refusal, so that its
		// next call on the same connection finds the permits back
		return retried(limit.name(), cost + " permit(s) on " + keys,
				() -> this.runner.executeAsync(refund, scriptKeys, args));
	}

	/**
	 * Sends a give-back until an attempt is confirmed, up to {@value #ATTEMPTS} times,
	 * and counts its end: the one-region give-back above and the give-back of a limit a
	 * {@link io.github.redkit.ratelimit.RateLimitDecider} decides (several regions)
	 * alike. Every attempt must be applied at most once whichever of them reach Redis (a
	 * marker that each attempt sends again). An attempt that throws, or answers
	 * {@code false}, is not sent again.
	 * @param limitName the limit's name, for the meter and the log
	 * @param what what is given back, for the log
	 * @param attempt sends one attempt
	 * @return completes with {@code true} when an attempt was confirmed, {@code false}
	 * when the give-back was given up (counted {@code failed}, logged as a WARN); never
	 * exceptionally
	 */
	CompletableFuture<Boolean> retried(String limitName, String what,
			Supplier<? extends CompletableFuture<?>> attempt) {
		CompletableFuture<Boolean> done = new CompletableFuture<>();
		attempt(limitName, what, attempt, 1, done);
		return done;
	}

	private void attempt(String limitName, String what, Supplier<? extends CompletableFuture<?>> send, int attempt,
			CompletableFuture<Boolean> done) {
		CompletableFuture<?> sent;
		try {
			sent = send.get();
		}
		catch (RuntimeException ex) {
			// thrown before anything was sent: a bug, that would throw again
			failed(limitName, what, attempt, ex, done);
			return;
		}
		// a timeout's follow-up (a retry, a WARN) runs on the runner's threads, not on
		// the JDK's one timer
		RedisScriptRunner.within(sent, this.attemptTimeout).whenComplete((reply, ex) -> {
			if (ex == null && !Boolean.FALSE.equals(reply)) {
				this.metrics.increment(RateLimitMeters.REFUNDS, "limit", limitName, "outcome",
						RateLimitMeters.GIVEN_BACK);
				done.complete(true);
				return;
			}
			Throwable cause = (ex == null) ? new IllegalStateException("the give-back was not applied")
					: (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
			// a script error, or an answer that it was not applied, would come again
			if (ex == null || attempt >= ATTEMPTS || cause instanceof RedkitScriptException) {
				failed(limitName, what, attempt, cause, done);
				return;
			}
			long backoff = FIRST_BACKOFF_MILLIS << (attempt - 1);
			try {
				this.delayer.accept(backoff, () -> attempt(limitName, what, send, attempt + 1, done));
			}
			catch (RuntimeException rejected) {
				// the scheduler is shut down or refused the retry: the give-back ends
				// here,
				// as failed, rather than leaving its answer incomplete
				rejected.addSuppressed(cause);
				failed(limitName, what, attempt, rejected, done);
			}
		});
	}

	private void failed(String limitName, String what, int attempt, Throwable cause, CompletableFuture<Boolean> done) {
		logger.warn("Rate limit '" + limitName + "': could not give back " + what + " after " + attempt + " attempt(s)",
				cause);
		this.metrics.increment(RateLimitMeters.REFUNDS, "limit", limitName, "outcome", RateLimitMeters.FAILED);
		done.complete(false);
	}

}
