package io.github.redkit.concurrency.internal;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

import io.github.redkit.concurrency.ConcurrencyLimiter;
import io.github.redkit.concurrency.ConcurrencyLimiterUnavailableException;
import io.github.redkit.concurrency.ConcurrencyObservationKind;
import io.github.redkit.concurrency.ConcurrencyPermit;
import io.github.redkit.concurrency.ConcurrencyPolicy;
import io.github.redkit.core.LimitFailureMode;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.RedkitOutcomes;
import io.github.redkit.core.internal.FailureCooldown;
import io.github.redkit.core.internal.LeaseRenewer;
import io.github.redkit.core.internal.RedisScriptRunner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.util.Assert;

/**
 * The {@link ConcurrencyLimiter} on Redis: a permit is a member of one sorted set per
 * limit and key, scored with the end of its lease on Redis' clock; taking one drops the
 * ended leases and adds a member only under the limit, in one script. Held permits are
 * renewed every third of their lease by a {@link LeaseRenewer}; when this process dies,
 * its permits end with their lease.
 * <p>
 * When Redis does not answer within the timeout, the failure mode applies: the call runs
 * without a permit ({@code allow}) or is refused with
 * {@link ConcurrencyLimiterUnavailableException} ({@code deny}); it keeps applying
 * without asking Redis for the failure cooldown, so that an outage does not add the
 * timeout to every call.
 */
public class RedisConcurrencyLimiter implements ConcurrencyLimiter, DisposableBean {

	private static final Log logger = LogFactory.getLog(RedisConcurrencyLimiter.class);

	private static final RedkitOutcomes<Optional<ConcurrencyPermit>> ACQUIRED = RedkitOutcomes
		.of((permit) -> permit.isPresent() ? "acquired" : "refused");

	private final ConcurrencyScripts scripts;

	private final Map<String, ConcurrencyPolicy> policies;

	private final ConcurrencyLimitSettings settings;

	private final RedkitMetrics metrics;

	private final RedkitObservations observations;

	private final FailureCooldown failureCooldown;

	private final LeaseRenewer renewer = new LeaseRenewer("redkit-concurrency-leases");

	/**
	 * Creates a limiter.
	 * @param runner runs the scripts
	 * @param keyspace builds the keys
	 * @param policies the named limits
	 * @param settings failure mode and Redis timeout
	 * @param metrics where to report, {@link RedkitMetrics#NONE} for nowhere
	 * @param observations where permit acquisitions are observed (as
	 * {@code redkit.concurrency.acquire}), {@link RedkitObservations#NONE} for nowhere
	 */
	public RedisConcurrencyLimiter(RedisScriptRunner runner, RedisKeyspace keyspace,
			Map<String, ConcurrencyPolicy> policies, ConcurrencyLimitSettings settings, RedkitMetrics metrics,
			RedkitObservations observations) {
		Assert.notNull(observations, "observations must not be null");
		this.observations = observations;
		this.scripts = new ConcurrencyScripts(runner, keyspace, settings.timeout());
		this.policies = Map.copyOf(policies);
		this.settings = settings;
		this.metrics = metrics;
		this.failureCooldown = new FailureCooldown(settings.failureCooldown());
	}

	@Override
	public Optional<ConcurrencyPermit> tryAcquire(String limitName, String key) {
		return acquire(limitName, limitName, named(limitName), key);
	}

	private ConcurrencyPolicy named(String limitName) {
		ConcurrencyPolicy policy = this.policies.get(limitName);
		if (policy == null) {
			throw new IllegalArgumentException("No concurrency limit named '" + limitName
					+ "': configure it under redkit.concurrency-limit.limits; known limits: " + this.policies.keySet());
		}
		return policy;
	}

	@Override
	public Optional<ConcurrencyPermit> tryAcquire(String limitName, ConcurrencyPolicy policy, String key) {
		return tryAcquire(limitName, limitName, policy, key);
	}

	@Override
	public Optional<ConcurrencyPermit> tryAcquire(String limitName, String limitId, ConcurrencyPolicy policy,
			String key) {
		Assert.hasText(limitName, "A concurrency limit needs a name");
		Assert.hasText(limitId, "A concurrency limit needs an id");
		Assert.notNull(policy, "A concurrency limit needs a policy");
		return acquire(limitName, limitId, policy, key);
	}

	@Override
	public CompletableFuture<Optional<ConcurrencyPermit>> tryAcquireAsync(String limitName, String key) {
		return acquireAsync(limitName, limitName, named(limitName), key);
	}

	@Override
	public CompletableFuture<Optional<ConcurrencyPermit>> tryAcquireAsync(String limitName, String limitId,
			ConcurrencyPolicy policy, String key) {
		Assert.hasText(limitName, "A concurrency limit needs a name");
		Assert.hasText(limitId, "A concurrency limit needs an id");
		Assert.notNull(policy, "A concurrency limit needs a policy");
		return acquireAsync(limitName, limitId, policy, key);
	}

	@Override
	public Optional<ConcurrencyPolicy> policy(String limitName) {
		return Optional.ofNullable(this.policies.get(limitName));
	}

	private Optional<ConcurrencyPermit> acquire(String limitName, String limitId, ConcurrencyPolicy policy,
			String key) {
		return this.observations.observe(ConcurrencyObservationKind.ACQUIRE, limitName,
				() -> acquirePermit(limitName, limitId, policy, key), ACQUIRED);
	}

	private CompletableFuture<Optional<ConcurrencyPermit>> acquireAsync(String limitName, String limitId,
			ConcurrencyPolicy policy, String key) {
		return answered(this.observations.observeAsync(ConcurrencyObservationKind.ACQUIRE, limitName,
				() -> acquirePermitAsync(limitName, limitId, policy, key), ACQUIRED));
	}

	private CompletableFuture<Optional<ConcurrencyPermit>> acquirePermitAsync(String limitName, String limitId,
			ConcurrencyPolicy policy, String key) {
		Assert.hasText(key, () -> "Concurrency limit '" + limitName + "': a key must not be null or empty");
		String redisKey = this.scripts.redisKey(limitId, key);
		String id = ConcurrencyScripts.newPermitId();
		long sent = System.nanoTime();
		// the runner bounds the script's answer, and its timeout completes on one of its
		// own threads: a timer here would complete on the JDK's one timer thread, and the
		// failure mode, the release and the caller's continuation would run there,
		// delaying every timer of the process
		return this.failureCooldown.coolingDown(sent) ? CompletableFuture.completedFuture(failed(limitName, null))
				: this.scripts.acquireAsync(redisKey, id, policy)
					.handle((reply, ex) -> (ex == null) ? granted(limitName, policy, redisKey, id, reply, sent, false)
							: notAnswered(limitName, redisKey, id, ex));
	}

	private CompletableFuture<Optional<ConcurrencyPermit>> answered(
			CompletableFuture<Optional<ConcurrencyPermit>> permit) {
		CompletableFuture<Optional<ConcurrencyPermit>> answer = new CompletableFuture<>();
		permit.whenComplete((result, ex) -> {
			if (ex != null) {
				answer.completeExceptionally(RedisScriptRunner.unwrap(ex));
			}
			else if (!answer.complete(result)) {
				// nobody waits for it any more (cancelled): it must not stay taken
				result.ifPresent(ConcurrencyPermit::closeAsync);
			}
		});
		return answer;
	}

	private Optional<ConcurrencyPermit> acquirePermit(String limitName, String limitId, ConcurrencyPolicy policy,
			String key) {
		Assert.hasText(key, () -> "Concurrency limit '" + limitName + "': a key must not be null or empty");
		String redisKey = this.scripts.redisKey(limitId, key);
		String id = ConcurrencyScripts.newPermitId();
		long sent = System.nanoTime();
		if (this.failureCooldown.coolingDown(sent)) {
			return failed(limitName, null);
		}
		long[] reply;
		try {
			reply = this.scripts.acquire(redisKey, id, policy);
		}
		catch (DataAccessException ex) {
			return notAnswered(limitName, redisKey, id, ex);
		}
		return granted(limitName, policy, redisKey, id, reply, sent, true);
	}

	private Optional<ConcurrencyPermit> granted(String limitName, ConcurrencyPolicy policy, String redisKey, String id,
			long[] reply, long sent, boolean blocking) {
		if (reply[0] != 1) {
			count(limitName, ConcurrencyMeters.REFUSED);
			return Optional.empty();
		}
		PermitGrant grant = new PermitGrant(limitName, redisKey, id, reply[1], Math.max(policy.limit() - reply[1], 0));
		RedisConcurrencyPermit permit = new RedisConcurrencyPermit(this.scripts, this.metrics, grant, sent,
				policy.lease());
		try {
			permit.renewedBy(this.renewer.start(policy.lease(),
					() -> permit.renew(() -> this.scripts.renewAsync(redisKey, id, policy.lease())), permit::markLost));
		}
		catch (RuntimeException ex) {
			// the renewer is shut down (the limiter is being destroyed with calls in
			// flight): a lease nobody renews is given back now, not left taken in Redis
			// until it ends
			if (blocking) {
				permit.close();
			}
			else {
				// on the thread that completed the script (Lettuce's, maybe): never wait
				permit.closeAsync();
			}
			throw new IllegalStateException(
					"Concurrency limit '" + limitName
							+ "': the limiter is stopping and can no longer renew a lease; the permit was given back",
					ex);
		}
		count(limitName, ConcurrencyMeters.ACQUIRED);
		return Optional.of(permit);
	}

	private Optional<ConcurrencyPermit> notAnswered(String limitName, String redisKey, String id, Throwable failure) {
		Throwable cause = RedisScriptRunner.unwrap(failure);
		DataAccessException ex;
		if (cause instanceof DataAccessException dataAccess) {
			ex = dataAccess;
		}
		else if (cause instanceof TimeoutException) {
			ex = new QueryTimeoutException("Redis did not answer " + ConcurrencyScripts.ACQUIRE.name() + " within "
					+ this.scripts.timeout().toMillis() + " ms", cause);
		}
		else {
			throw (cause instanceof RuntimeException runtime) ? runtime : new CompletionException(cause);
		}
		// a late answer may still have taken the place: the release sent after it gives
		// it back; sent from another thread, as reaching a Redis that is down can block
		CompletableFuture.runAsync(() -> this.scripts.releaseLater(redisKey, id));
		this.failureCooldown.failed();
		return failed(limitName, ex);
	}

	/**
	 * The failure mode, after a failure or while cooling down after one ({@code cause}
	 * {@code null}).
	 */
	private Optional<ConcurrencyPermit> failed(String limitName, @Nullable DataAccessException cause) {
		if (cause != null) {
			logger.warn("Concurrency limit '" + limitName + "' could not be checked (failure mode "
					+ this.settings.failureMode() + "): " + cause.getMessage());
		}
		if (this.settings.failureMode() == LimitFailureMode.ALLOW) {
			count(limitName, ConcurrencyMeters.FAILED_OPEN);
			return Optional.of(new UnleasedPermit(limitName));
		}
		count(limitName, ConcurrencyMeters.FAILED_CLOSED);
		throw new ConcurrencyLimiterUnavailableException(limitName, this.failureCooldown.duration(), cause);
	}

	private void count(String limitName, String outcome) {
		this.metrics.increment(ConcurrencyMeters.PERMITS, "limit", limitName, "outcome", outcome);
	}

	/**
	 * The Redis key of a (limit, key) pair, for tests and tools.
	 * @param limitId the limit's name (or an inline limit's id)
	 * @param key the key
	 * @return the sorted set's key
	 */
	public String redisKey(String limitId, String key) {
		return this.scripts.redisKey(limitId, key);
	}

	/**
	 * Stops renewing held permits: they end with their lease, as if this process had
	 * died.
	 */
	@Override
	public void destroy() {
		this.renewer.shutdown();
	}

}
