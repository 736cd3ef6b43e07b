package io.github.redkit.idempotency;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * Idempotent, ordered steps of operations, for code that cannot use
 * {@link IdempotentStep}. Claim a step; if {@link StepOutcome#CLAIMED}, do the work and
 * {@link #complete} it, or {@link #abandon} it when the work failed. Every call is one
 * script call; when Redis cannot be reached in time it throws a
 * {@code DataAccessException} (steps fail closed). Each operation also has an
 * asynchronous form ({@code ...Async}), the one {@code RedisIdempotentSteps} implements
 * and {@link ReactiveIdempotentSteps} wraps; the defaults here run the blocking form on
 * the common pool, for implementations that have no asynchronous one.
 */
public interface IdempotentSteps {

	/**
	 * Claims a step.
	 * @param operation the operation id
	 * @param step the step
	 * @param after the steps that must be done, exactly, before it
	 * @param ttl how long the operation's record is kept, {@code null} for the default
	 * @return the decision
	 */
	StepOutcome claim(String operation, String step, @Nullable Set<String> after, @Nullable Duration ttl);

	/**
	 * Claims a step, with every option and the full answer.
	 * @param operation the operation id
	 * @param step the step
	 * @param after the steps that must be done, exactly, before it
	 * @param ttl how long the operation's record is kept, {@code null} for the default
	 * @param lease how long the claim holds the step, {@code null} for the default
	 * @param fingerprint the request's fingerprint, {@code null} or empty for none
	 * @return the decision with what was recorded
	 * @throws IdempotencyKeyReusedException when the step was claimed with another
	 * fingerprint
	 */
	StepClaim claim(String operation, String step, @Nullable Set<String> after, @Nullable Duration ttl,
			@Nullable Duration lease, @Nullable String fingerprint);

	/**
	 * Records a step as done with its result (stored as JSON), whichever claim holds it;
	 * the first completion wins. Prefer {@link #complete(StepClaim, Object)}, which
	 * refuses to complete over another holder's claim.
	 * @param operation the operation id
	 * @param step the step
	 * @param result the result, may be {@code null}
	 */
	void complete(String operation, String step, @Nullable Object result);

	/**
	 * Records a claimed step as done with its result, if the claim still holds the step.
	 * @param claim the claim
	 * @param result the result, may be {@code null}
	 * @throws StepClaimLostException when the claim's lease ran out and another delivery
	 * took the step over (or completed it): the result is not recorded
	 */
	void complete(StepClaim claim, @Nullable Object result);

	/**
	 * Renews a claim's lease (by the lease it was taken with) while its step runs; the
	 * {@code @IdempotentStep} interceptor does this every third of the lease.
	 * @param claim the claim
	 * @return {@code false} when the claim no longer holds the step
	 */
	boolean extend(StepClaim claim);

	/**
	 * Removes a step's in-progress claim, whoever holds it, so that a retry can run it.
	 * @param operation the operation id
	 * @param step the step
	 */
	void abandon(String operation, String step);

	/**
	 * Removes a claim if it still holds the step.
	 * @param claim the claim
	 */
	void abandon(StepClaim claim);

	/**
	 * The steps of an operation that are done.
	 * @param operation the operation id
	 * @return the done steps, empty when none
	 */
	Set<String> recordedSteps(String operation);

	/**
	 * A done step's result.
	 * @param <T> the result type
	 * @param operation the operation id
	 * @param step the step
	 * @param type the result type
	 * @return the result, {@code null} when the step is not done (or returned null)
	 */
	<T> @Nullable T result(String operation, String step, Class<T> type);

	/**
	 * Claims a step without waiting: the answer of
	 * {@link #claim(String, String, Set, Duration, Duration, String)}.
	 * @param operation the operation id
	 * @param step the step
	 * @param after the steps that must be done, exactly, before it
	 * @param ttl how long the operation's record is kept, {@code null} for the default
	 * @param lease how long the claim holds the step, {@code null} for the default
	 * @param fingerprint the request's fingerprint, {@code null} or empty for none
	 * @return the decision, completed exceptionally with what the blocking method throws
	 */
	default CompletableFuture<StepClaim> claimAsync(String operation, String step, @Nullable Set<String> after,
			@Nullable Duration ttl, @Nullable Duration lease, @Nullable String fingerprint) {
		return CompletableFuture.supplyAsync(() -> claim(operation, step, after, ttl, lease, fingerprint));
	}

	/**
	 * Records a step as done without waiting; see
	 * {@link #complete(String, String, Object)}.
	 * @param operation the operation id
	 * @param step the step
	 * @param result the result, may be {@code null}
	 * @return completed once recorded
	 */
	default CompletableFuture<Void> completeAsync(String operation, String step, @Nullable Object result) {
		return CompletableFuture.runAsync(() -> complete(operation, step, result));
	}

	/**
	 * Records a claimed step as done without waiting; see
	 * {@link #complete(StepClaim, Object)}.
	 * @param claim the claim
	 * @param result the result, may be {@code null}
	 * @return completed once recorded, exceptionally with {@link StepClaimLostException}
	 * when the claim was lost
	 */
	default CompletableFuture<Void> completeAsync(StepClaim claim, @Nullable Object result) {
		return CompletableFuture.runAsync(() -> complete(claim, result));
	}

	/**
	 * Renews a claim's lease without waiting; see {@link #extend(StepClaim)}.
	 * @param claim the claim
	 * @return {@code false} when the claim no longer holds the step
	 */
	default CompletableFuture<Boolean> extendAsync(StepClaim claim) {
		return CompletableFuture.supplyAsync(() -> extend(claim));
	}

	/**
	 * Removes a step's in-progress claim without waiting; see
	 * {@link #abandon(String, String)}.
	 * @param operation the operation id
	 * @param step the step
	 * @return completed once removed
	 */
	default CompletableFuture<Void> abandonAsync(String operation, String step) {
		return CompletableFuture.runAsync(() -> abandon(operation, step));
	}

	/**
	 * Removes a claim without waiting; see {@link #abandon(StepClaim)}.
	 * @param claim the claim
	 * @return completed once removed (or found gone)
	 */
	default CompletableFuture<Void> abandonAsync(StepClaim claim) {
		return CompletableFuture.runAsync(() -> abandon(claim));
	}

	/**
	 * The done steps of an operation, without waiting; see
	 * {@link #recordedSteps(String)}.
	 * @param operation the operation id
	 * @return the done steps, empty when none
	 */
	default CompletableFuture<Set<String>> recordedStepsAsync(String operation) {
		return CompletableFuture.supplyAsync(() -> recordedSteps(operation));
	}

	/**
	 * A done step's result, without waiting; see {@link #result(String, String, Class)}.
	 * @param <T> the result type
	 * @param operation the operation id
	 * @param step the step
	 * @param type the result type
	 * @return the result, {@code null} when the step is not done (or returned null)
	 */
	default <T> CompletableFuture<@Nullable T> resultAsync(String operation, String step, Class<T> type) {
		return CompletableFuture.supplyAsync(() -> result(operation, step, type));
	}

}
