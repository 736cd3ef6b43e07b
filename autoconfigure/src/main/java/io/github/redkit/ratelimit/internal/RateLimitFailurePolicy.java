package io.github.redkit.ratelimit.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.internal.FailureCooldown;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.core.internal.ReplayDroppedException;
import io.github.redkit.ratelimit.RateLimitDecision;
import io.github.redkit.ratelimit.RateLimitFailureMode;
import io.github.redkit.ratelimit.RateLimiterUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;

/**
 * What a rate limiter answers when Redis does not decide in time: the
 * {@linkplain RateLimitFailureMode failure mode} (let the call through, refuse it, or let
 * a {@link LocalRateLimiter} decide), which keeps applying without asking Redis for the
 * failure cooldown, so that an outage does not add the timeout to every call. Only the
 * failure path comes here: the limiter reads the cooldown itself, and tells this policy
 * that Redis answers again only after it decided a call.
 */
final class RateLimitFailurePolicy {

	// the limiter's logger, as before this class was split off: operators filter on it
	private static final Log logger = LogFactory.getLog(RedisRateLimiter.class);

	private final RateLimitFailureMode failureMode;

	private final Duration timeout;

	private final FailureCooldown failureCooldown;

	private final @Nullable LocalRateLimiter localLimiter;

	private final RedkitMetrics metrics;

	/**
	 * Creates the policy.
	 * @param settings failure mode, Redis timeout and local limiter
	 * @param failureCooldown the cooldown a failure starts, which the limiter reads
	 * @param metrics counts the decisions the failure mode makes
	 */
	RateLimitFailurePolicy(RateLimitSettings settings, FailureCooldown failureCooldown, RedkitMetrics metrics) {
		this.failureMode = settings.failureMode();
		this.timeout = settings.timeout();
		this.failureCooldown = failureCooldown;
		this.localLimiter = settings.localLimiter();
		this.metrics = metrics;
	}

	/**
	 * Redis answered after the failure mode decided: a local limiter that decided
	 * meanwhile hands back to it.
	 */
	void recovered() {
		LocalRateLimiter local = this.localLimiter;
		if (local != null) {
			local.recovered();
		}
	}

	/**
	 * Decides a call Redis failed to decide, and starts the cooldown, unless Redis was
	 * reached and only this call's re-send was dropped.
	 * @param limit the limit
	 * @param keys the identifiers
	 * @param cost the permits
	 * @param start when the call started, monotonic nanoseconds
	 * @param cause why Redis did not decide
	 * @return the failure mode's decision
	 * @throws RateLimiterUnavailableException in the {@code DENY} failure mode
	 */
	RateLimitDecision failedAfter(PreparedLimit limit, List<String> keys, int cost, long start,
			DataAccessException cause) {
		// a dropped re-send proves Redis reachable (the PING in its place was answered):
		// the next calls, every other limit's too, would not wait for a timeout
		if (!(cause instanceof ReplayDroppedException)) {
			this.failureCooldown.failed();
		}
		return failed(limit, keys, cost, start, cause);
	}

	/**
	 * Decides a call by the failure mode.
	 * @param limit the limit
	 * @param keys the identifiers
	 * @param cost the permits
	 * @param start when the call started, monotonic nanoseconds
	 * @param cause why Redis did not decide, {@code null} while cooling down
	 * @return the failure mode's decision
	 * @throws RateLimiterUnavailableException in the {@code DENY} failure mode
	 */
	RateLimitDecision failed(PreparedLimit limit, List<String> keys, int cost, long start,
			@Nullable DataAccessException cause) {
		String limitName = limit.name();
		if (cause != null) {
			logger.warn("Rate limit '" + limitName + "' could not be decided (failure mode " + this.failureMode + "): "
					+ cause.getMessage());
		}
		// counted apart, so that operators tell a dropped re-send from an outage
		boolean dropped = cause instanceof ReplayDroppedException;
		LocalRateLimiter local = this.localLimiter;
		if (this.failureMode == RateLimitFailureMode.LOCAL && local != null) {
			// a dropped re-send is no outage: the instance is not degraded for it
			RateLimitDecision decision = local.decide(limit, keys, cost, !dropped);
			RateLimitMeters.decided(this.metrics, limitName, dropped ? RateLimitMeters.REPLAY_DROPPED
					: decision.allowed() ? RateLimitMeters.LOCAL_ALLOWED : RateLimitMeters.LOCAL_DENIED, start);
			return decision;
		}
		if (this.failureMode == RateLimitFailureMode.ALLOW) {
			RateLimitMeters.decided(this.metrics, limitName,
					dropped ? RateLimitMeters.REPLAY_DROPPED : RateLimitMeters.FAILED_OPEN, start);
			return RateLimitDecision.failedOpen(limit.policy());
		}
		RateLimitMeters.decided(this.metrics, limitName,
				dropped ? RateLimitMeters.REPLAY_DROPPED : RateLimitMeters.FAILED_CLOSED, start);
		// no cooldown after a dropped re-send: Redis is asked again at the next call
		throw new RateLimiterUnavailableException(limitName, dropped ? Duration.ZERO : this.failureCooldown.duration(),
				cause);
	}

	/**
	 * The Redis failure behind a failed decision, for the failure mode.
	 * @param limit the limit
	 * @param failure how the decision failed
	 * @return the failure, a timeout as a {@link QueryTimeoutException}
	 * @throws RuntimeException the failure itself when it is not Redis' (a bug): no
	 * failure mode applies
	 */
	DataAccessException accessFailure(PreparedLimit limit, Throwable failure) {
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

}
