package io.github.redkit.idempotency;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;

import io.github.redkit.core.LuaScript;
import io.github.redkit.core.RedisKeyspace;
import io.github.redkit.core.RedisScriptRunner;
import io.github.redkit.core.RedkitMetrics;
import io.github.redkit.core.RedkitObservation;
import io.github.redkit.core.RedkitObservationKind;
import io.github.redkit.core.RedkitObservations;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.dao.DataAccessException;
import org.springframework.util.Assert;

/**
 * {@link IdempotentSteps} on Redis. An operation is two hashes under one hash tag:
 * {@code <prefix>:idempotency:{<operation>}:state} (step &rarr; done, or in progress with
 * a lease) and {@code :results} (step &rarr; result JSON), both expiring after the
 * operation's ttl. Each call is one script.
 */
public class RedisIdempotentSteps implements IdempotentSteps {

	private static final LuaScript<List> CLAIM = LuaScript.load("idempotency_claim", List.class);

	private static final LuaScript<Long> COMPLETE = LuaScript.load("idempotency_complete", Long.class);

	private static final LuaScript<Long> ABANDON = LuaScript.load("idempotency_abandon", Long.class);

	private static final LuaScript<Long> EXTEND = LuaScript.load("idempotency_extend", Long.class);

	private static final LuaScript<List> READ = LuaScript.load("idempotency_read", List.class);

	private final RedisScriptRunner runner;

	private final RedisKeyspace keyspace;

	private final JsonMapper jsonMapper;

	private final IdempotencySettings settings;

	private final RedkitMetrics metrics;

	private RedkitObservations observations = RedkitObservations.NONE;

	/**
	 * Creates the steps.
	 * @param runner runs the scripts
	 * @param keyspace builds the keys
	 * @param jsonMapper writes and reads results
	 * @param settings defaults and the Redis timeout
	 * @param metrics receives claim outcomes
	 */
	public RedisIdempotentSteps(RedisScriptRunner runner, RedisKeyspace keyspace, JsonMapper jsonMapper,
			IdempotencySettings settings, RedkitMetrics metrics) {
		this.runner = runner;
		this.keyspace = keyspace;
		this.jsonMapper = jsonMapper;
		this.settings = settings;
		this.metrics = metrics;
	}

	/**
	 * Sets where step claims are observed (as {@code redkit.idempotency.claim}).
	 * @param observations the observations, {@link RedkitObservations#NONE} by default
	 */
	public void setObservations(RedkitObservations observations) {
		Assert.notNull(observations, "observations must not be null");
		this.observations = observations;
	}

	@Override
	public StepOutcome claim(String operation, String step, @Nullable Set<String> after, @Nullable Duration ttl) {
		return claim(operation, step, after, ttl, null, null).outcome();
	}

	@Override
	public StepClaim claim(String operation, String step, @Nullable Set<String> after, @Nullable Duration ttl,
			@Nullable Duration lease, @Nullable String fingerprint) {
		Assert.hasText(step, "Step must not be empty");
		try (RedkitObservation observation = this.observations.start(RedkitObservationKind.STEP_CLAIM, step)) {
			try {
				StepClaim claim = claimStep(operation, step, after, ttl, lease, fingerprint);
				observation.outcome(claim.outcome().name().toLowerCase(Locale.ROOT));
				return claim;
			}
			catch (RuntimeException ex) {
				observation.outcome((ex instanceof IdempotencyKeyReusedException) ? "key_reused" : "failed");
				observation.error(ex);
				throw ex;
			}
		}
	}

	private StepClaim claimStep(String operation, String step, @Nullable Set<String> after, @Nullable Duration ttl,
			@Nullable Duration lease, @Nullable String fingerprint) {
		Assert.isTrue(after == null || !after.contains(step), () -> "Step '" + step + "' cannot come after itself");
		Duration recordTtl = positive((ttl != null) ? ttl : this.settings.ttl(), "ttl");
		Duration claimLease = positive((lease != null) ? lease : this.settings.lease(), "lease");
		String print = (fingerprint != null) ? fingerprint : "";
		String token = UUID.randomUUID().toString();
		List<String> args = new ArrayList<>(5 + ((after != null) ? after.size() : 0));
		args.add(step);
		args.add(Long.toString(recordTtl.toMillis()));
		args.add(Long.toString(claimLease.toMillis()));
		args.add(token);
		args.add(print);
		if (after != null) {
			args.addAll(after);
		}
		List<?> reply;
		try {
			reply = this.runner.execute(CLAIM, this.settings.timeout(), keys(operation), args.toArray(String[]::new));
		}
		catch (DataAccessException ex) {
			this.metrics.increment(IdempotencyMeters.STEPS, "step", step, "outcome", "unavailable");
			throw ex;
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
	}

	@Override
	public void complete(String operation, String step, @Nullable Object result) {
		complete(operation, step, result, this.settings.ttl(), "", "");
	}

	@Override
	public void complete(StepClaim claim, @Nullable Object result) {
		if (complete(claim.operation(), claim.step(), result, claim.ttl(), claim.fingerprint(), claim.token()) < 0) {
			this.metrics.increment(IdempotencyMeters.STEPS, "step", claim.step(), "outcome", "lost");
			throw new StepClaimLostException(claim.operation(), claim.step());
		}
	}

	private long complete(String operation, String step, @Nullable Object result, Duration ttl, String fingerprint,
			String token) {
		String json = this.jsonMapper.writeValueAsString(result);
		return this.runner.execute(COMPLETE, this.settings.timeout(), keys(operation), step, json,
				Long.toString(ttl.toMillis()), fingerprint, token);
	}

	@Override
	public boolean extend(StepClaim claim) {
		return this.runner.execute(EXTEND, this.settings.timeout(), keys(claim.operation()).subList(0, 1), claim.step(),
				claim.token(), Long.toString(claim.lease().toMillis())) == 1;
	}

	@Override
	public void abandon(String operation, String step) {
		this.runner.execute(ABANDON, this.settings.timeout(), keys(operation).subList(0, 1), step, "");
	}

	@Override
	public void abandon(StepClaim claim) {
		// abandoning follows a failure, often an interrupt: it must still reach Redis
		RedisScriptRunner.uninterrupted(() -> this.runner.execute(ABANDON, this.settings.timeout(),
				keys(claim.operation()).subList(0, 1), claim.step(), claim.token()));
	}

	@Override
	public Set<String> recordedSteps(String operation) {
		return names(read(operation, "").get(0));
	}

	@Override
	public <T> @Nullable T result(String operation, String step, Class<T> type) {
		Assert.hasText(step, "Step must not be empty");
		String json = (String) read(operation, step).get(1);
		return (json != null) ? this.jsonMapper.readValue(json, type) : null;
	}

	private List<?> read(String operation, String step) {
		return this.runner.execute(READ, this.settings.timeout(), keys(operation), step);
	}

	private List<String> keys(String operation) {
		Assert.hasText(operation, "Operation must not be empty");
		RedisKeyspace.Key key = this.keyspace.key("idempotency").tag(operation);
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
