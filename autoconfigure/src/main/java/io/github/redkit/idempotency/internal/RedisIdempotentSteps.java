package io.github.redkit.idempotency.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservations;
import io.github.redkit.core.RedkitOutcomes;
import io.github.redkit.core.internal.LuaScript;
import io.github.redkit.core.internal.RandomIds;
import io.github.redkit.core.internal.RedisScriptRunner;
import io.github.redkit.core.internal.ReplayWindow;
import io.github.redkit.idempotency.IdempotencyKeyReusedException;
import io.github.redkit.idempotency.IdempotencyObservationKind;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.StepClaim;
import io.github.redkit.idempotency.StepClaimLostException;
import io.github.redkit.idempotency.StepOutcome;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.util.Assert;

/**
 * {@link IdempotentSteps} on Redis. An operation is two hashes under one hash tag:
 * {@code <prefix>:idempotency:{<operation>}:state} (step &rarr; done, or in progress with
 * a lease) and {@code :results} (step &rarr; result JSON), both expiring after the
 * operation's ttl. Each call is one script, sent asynchronously: the blocking methods
 * await the asynchronous ones, which the reactive face
 * ({@link DefaultReactiveIdempotentSteps}) wraps, so that both faces share the same
 * scripts, keys, meters and observations.
 */
public class RedisIdempotentSteps implements IdempotentSteps {

	private static final LuaScript<List> CLAIM = LuaScript.load("idempotency_claim", List.class);

	private static final RedkitOutcomes<StepClaim> CLAIMED = RedkitOutcomes
		.of((StepClaim claim) -> claim.outcome().name().toLowerCase(Locale.ROOT))
		.onFailure((ex) -> (ex instanceof IdempotencyKeyReusedException) ? "key_reused" : "failed");

	private static final LuaScript<Long> COMPLETE = LuaScript.load("idempotency_complete", Long.class);

	private static final LuaScript<Long> ABANDON = LuaScript.load("idempotency_abandon", Long.class).givingBack();

	private static final LuaScript<Long> EXTEND = LuaScript.load("idempotency_extend", Long.class);

	private static final LuaScript<List> READ = LuaScript.load("idempotency_read", List.class);

	private final RedisScriptRunner runner;

	private final RedisKeyspace keyspace;

	private final JsonMapper jsonMapper;

	private final IdempotencySettings settings;

	private final RedkitMetrics metrics;

	private volatile String onceTtl;

	private final RedkitObservations observations;

	/**
	 * Creates the steps.
	 * @param runner runs the scripts
	 * @param keyspace builds the keys
	 * @param jsonMapper writes and reads results
	 * @param settings defaults and the Redis timeout
	 * @param metrics receives claim outcomes
	 * @param observations where step claims are observed (as
	 * {@code redkit.idempotency.claim}), {@link RedkitObservations#NONE} for nowhere
	 */
	public RedisIdempotentSteps(RedisScriptRunner runner, RedisKeyspace keyspace, JsonMapper jsonMapper,
			IdempotencySettings settings, RedkitMetrics metrics, RedkitObservations observations) {
		Assert.notNull(observations, "observations must not be null");
		this.observations = observations;
		this.runner = runner;
		this.keyspace = keyspace;
		this.jsonMapper = jsonMapper;
		this.settings = settings;
		this.metrics = metrics;
		this.onceTtl = onceTtl(ReplayWindow.DEFAULT_COMMAND_TIMEOUT, settings);
	}

	/**
	 * Sets the connection's command timeout ({@link ReplayWindow#DEFAULT_COMMAND_TIMEOUT}
	 * unless set): Lettuce sends a command again after a reconnect until then, so the id
	 * generated for an {@link #abandon(String, String)} is kept for the
	 * {@link ReplayWindow} (never longer than the steps' ttl).
	 * @param commandTimeout the connection's command timeout
	 */
	public void setCommandTimeout(Duration commandTimeout) {
		Assert.isTrue(commandTimeout != null && commandTimeout.toMillis() > 0, "commandTimeout must be positive");
		this.onceTtl = onceTtl(commandTimeout, this.settings);
	}

	private static String onceTtl(Duration commandTimeout, IdempotencySettings settings) {
		return Long.toString(ReplayWindow.of(commandTimeout, settings.timeout(), settings.ttl()).toMillis());
	}

	@Override
	public StepOutcome claim(String operation, String step, @Nullable Set<String> after, @Nullable Duration ttl) {
		return claim(operation, step, after, ttl, null, null).outcome();
	}

	@Override
	public StepClaim claim(String operation, String step, @Nullable Set<String> after, @Nullable Duration ttl,
			@Nullable Duration lease, @Nullable String fingerprint) {
		Assert.hasText(step, "Step must not be empty");
		return this.observations.observe(IdempotencyObservationKind.CLAIM, step,
				() -> await(claimStep(operation, step, after, ttl, lease, fingerprint), "idempotency_claim"), CLAIMED);
	}

	@Override
	public CompletableFuture<StepClaim> claimAsync(String operation, String step, @Nullable Set<String> after,
			@Nullable Duration ttl, @Nullable Duration lease, @Nullable String fingerprint) {
		Assert.hasText(step, "Step must not be empty");
		return this.observations.observeAsync(IdempotencyObservationKind.CLAIM, step,
				() -> claimStep(operation, step, after, ttl, lease, fingerprint), CLAIMED);
	}

	private CompletableFuture<StepClaim> claimStep(String operation, String step, @Nullable Set<String> after,
			@Nullable Duration ttl, @Nullable Duration lease, @Nullable String fingerprint) {
		Assert.isTrue(after == null || !after.contains(step), () -> "Step '" + step + "' cannot come after itself");
		Duration recordTtl = positive((ttl != null) ? ttl : this.settings.ttl(), "ttl");
		Duration claimLease = positive((lease != null) ? lease : this.settings.lease(), "lease");
		String print = (fingerprint != null) ? fingerprint : "";
		String token = RandomIds.next();
		List<String> args = new ArrayList<>(5 + ((after != null) ? after.size() : 0));
		args.add(step);
		args.add(Long.toString(recordTtl.toMillis()));
		args.add(Long.toString(claimLease.toMillis()));
		args.add(token);
		args.add(print);
		if (after != null) {
			args.addAll(after);
		}
		List<String> keys = keys(operation);
		return run(CLAIM, keys, args.toArray(String[]::new)).handle((reply, ex) -> {
			if (ex != null) {
				if (unwrap(ex) instanceof DataAccessException) {
					this.metrics.increment(IdempotencyMeters.STEPS, "step", step, "outcome", "unavailable");
				}
				throw propagated(ex);
			}
			String answer = (String) reply.get(0);
			if ("REUSED".equals(answer)) {
				this.metrics.increment(IdempotencyMeters.STEPS, "step", step, "outcome", "key_reused");
				throw new IdempotencyKeyReusedException(operation, step);
			}
			StepOutcome outcome = StepOutcome.valueOf(answer);
			this.metrics.increment(IdempotencyMeters.STEPS, "step", step, "outcome",
					outcome.name().toLowerCase(Locale.ROOT));
			return new StepClaim(operation, step, outcome, token, recordTtl, claimLease, print, (String) reply.get(1),
					names(reply.get(2)), names(reply.get(3)));
		});
	}

	@Override
	public void complete(String operation, String step, @Nullable Object result) {
		await(completeAsync(operation, step, result), "idempotency_complete");
	}

	@Override
	public CompletableFuture<Void> completeAsync(String operation, String step, @Nullable Object result) {
		return complete(operation, step, result, this.settings.ttl(), "", "").thenApply((recorded) -> null);
	}

	@Override
	public void complete(StepClaim claim, @Nullable Object result) {
		await(completeAsync(claim, result), "idempotency_complete");
	}

	@Override
	public CompletableFuture<Void> completeAsync(StepClaim claim, @Nullable Object result) {
		return complete(claim.operation(), claim.step(), result, claim.ttl(), claim.fingerprint(), claim.token())
			.thenApply((recorded) -> {
				if (recorded < 0) {
					this.metrics.increment(IdempotencyMeters.STEPS, "step", claim.step(), "outcome", "lost");
					throw new StepClaimLostException(claim.operation(), claim.step());
				}
				return null;
			});
	}

	private CompletableFuture<Long> complete(String operation, String step, @Nullable Object result, Duration ttl,
			String fingerprint, String token) {
		String json;
		try {
			json = this.jsonMapper.writeValueAsString(result);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return run(COMPLETE, keys(operation), step, json, Long.toString(ttl.toMillis()), fingerprint, token);
	}

	@Override
	public boolean extend(StepClaim claim) {
		return await(extendAsync(claim), "idempotency_extend");
	}

	@Override
	public CompletableFuture<Boolean> extendAsync(StepClaim claim) {
		return run(EXTEND, keys(claim.operation()).subList(0, 1), claim.step(), claim.token(),
				Long.toString(claim.lease().toMillis()))
			.thenApply((extended) -> extended == 1);
	}

	@Override
	public void abandon(String operation, String step) {
		await(abandonAsync(operation, step), "idempotency_abandon");
	}

	@Override
	public CompletableFuture<Void> abandonAsync(String operation, String step) {
		// whichever claim holds the step: a copy Lettuce sends again after a reconnect
		// must not remove a claim taken since (issue 43), so the call carries an id of
		// its
		// own, remembered for the replay window
		Assert.hasText(operation, "Operation must not be empty");
		String record = this.keyspace.key("idempotency").tag(operation).part("abandon", RandomIds.next()).build();
		return run(ABANDON, List.of(keys(operation).get(0), record), step, "", this.onceTtl)
			.thenApply((removed) -> null);
	}

	@Override
	public void abandon(StepClaim claim) {
		// abandoning follows a failure, often an interrupt: it must still reach Redis
		RedisScriptRunner.uninterrupted(() -> await(abandonAsync(claim), "idempotency_abandon"));
	}

	@Override
	public CompletableFuture<Void> abandonAsync(StepClaim claim) {
		return run(ABANDON, keys(claim.operation()).subList(0, 1), claim.step(), claim.token())
			.thenApply((removed) -> null);
	}

	@Override
	public Set<String> recordedSteps(String operation) {
		return await(recordedStepsAsync(operation), "idempotency_read");
	}

	@Override
	public CompletableFuture<Set<String>> recordedStepsAsync(String operation) {
		return read(operation, "").thenApply((reply) -> names(reply.get(0)));
	}

	@Override
	public <T> @Nullable T result(String operation, String step, Class<T> type) {
		return await(resultAsync(operation, step, type), "idempotency_read");
	}

	@Override
	public <T> CompletableFuture<@Nullable T> resultAsync(String operation, String step, Class<T> type) {
		Assert.hasText(step, "Step must not be empty");
		return read(operation, step).thenApply((reply) -> {
			String json = (String) reply.get(1);
			return (json != null) ? this.jsonMapper.readValue(json, type) : null;
		});
	}

	private CompletableFuture<List> read(String operation, String step) {
		return run(READ, keys(operation), step);
	}

	/**
	 * Sends a script, its answer bounded by the timeout: every call of both faces goes
	 * through here.
	 */
	private <T> CompletableFuture<T> run(LuaScript<T> script, List<String> keys, String... args) {
		CompletableFuture<T> answer;
		try {
			answer = this.runner.executeAsync(script, keys, args);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		Duration timeout = this.settings.timeout();
		// a timeout's follow-up runs on the runner's threads, not on the JDK's one timer
		return RedisScriptRunner.within(answer, timeout).handle((value, ex) -> {
			if (ex == null) {
				return value;
			}
			Throwable cause = unwrap(ex);
			if (cause instanceof TimeoutException) {
				throw new QueryTimeoutException(
						"Redis did not answer " + script.name() + " within " + timeout.toMillis() + " ms", cause);
			}
			throw propagated(cause);
		});
	}

	/**
	 * Waits for an answer of {@link #run}, which carries its own timeout, and throws what
	 * it failed with (a Redis failure, or a refusal such as
	 * {@link IdempotencyKeyReusedException}).
	 */
	private static <T> T await(CompletableFuture<T> answer, String what) {
		try {
			return answer.get();
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			throw propagated((cause != null) ? cause : ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new QueryTimeoutException("Interrupted while waiting for " + what, ex);
		}
	}

	private static RuntimeException propagated(Throwable failure) {
		Throwable ex = unwrap(failure);
		if (ex instanceof RuntimeException runtime) {
			return runtime;
		}
		if (ex instanceof Error error) {
			throw error;
		}
		return new RedisSystemException("Redis call failed", ex);
	}

	private static Throwable unwrap(Throwable ex) {
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	private List<String> keys(String operation) {
		Assert.hasText(operation, "Operation must not be empty");
		return keys(this.keyspace, operation);
	}

	/**
	 * The keys of an operation's recorded steps, in one hash tag: its state hash (each
	 * step's state, and a claim's lease and token) and its results hash.
	 * @param keyspace the keyspace
	 * @param operation the operation, as the application names it
	 * @return the state hash's and the results hash's keys
	 */
	public static List<String> keys(RedisKeyspace keyspace, String operation) {
		RedisKeyspace.Key key = keyspace.key("idempotency").tag(operation);
		return List.of(key.part("state").build(), key.part("results").build());
	}

	private static Set<String> names(Object reply) {
		Set<String> names = new LinkedHashSet<>();
		if (reply instanceof List<?> list) {
			list.forEach((name) -> names.add((String) name));
		}
		return names;
	}

	private static Duration positive(Duration duration, String what) {
		Assert.isTrue(duration != null && duration.toMillis() > 0, () -> "The " + what + " must be positive");
		return duration;
	}

}
