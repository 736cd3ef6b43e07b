package io.github.redkit.idempotency;

import java.time.Duration;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The reactive face of {@link IdempotentSteps}: the same operations, each decided when
 * the returned {@code Mono} is subscribed to (and again at each subscription), never
 * blocking the subscribing thread. Failures are the blocking face's exceptions, as
 * errors.
 */
public interface ReactiveIdempotentSteps {

	/**
	 * Claims a step.
	 * @param operation the operation id
	 * @param step the step
	 * @param after the steps that must be done, exactly, before it
	 * @param ttl how long the operation's record is kept, {@code null} for the default
	 * @return the decision
	 */
	Mono<StepOutcome> claim(String operation, String step, @Nullable Set<String> after, @Nullable Duration ttl);

	/**
	 * Claims a step, with every option and the full answer.
	 * @param operation the operation id
	 * @param step the step
	 * @param after the steps that must be done, exactly, before it
	 * @param ttl how long the operation's record is kept, {@code null} for the default
	 * @param lease how long the claim holds the step, {@code null} for the default
	 * @param fingerprint the request's fingerprint, {@code null} or empty for none
	 * @return the decision with what was recorded; an
	 * {@link IdempotencyKeyReusedException} when the step was claimed with another
	 * fingerprint
	 */
	Mono<StepClaim> claim(String operation, String step, @Nullable Set<String> after, @Nullable Duration ttl,
			@Nullable Duration lease, @Nullable String fingerprint);

	/**
	 * Records a step as done with its result, whichever claim holds it.
	 * @param operation the operation id
	 * @param step the step
	 * @param result the result, may be {@code null}
	 * @return completes once recorded
	 */
	Mono<Void> complete(String operation, String step, @Nullable Object result);

	/**
	 * Records a claimed step as done with its result, if the claim still holds the step.
	 * @param claim the claim
	 * @param result the result, may be {@code null}
	 * @return completes once recorded; a {@link StepClaimLostException} when the claim
	 * was lost
	 */
	Mono<Void> complete(StepClaim claim, @Nullable Object result);

	/**
	 * Renews a claim's lease.
	 * @param claim the claim
	 * @return {@code false} when the claim no longer holds the step
	 */
	Mono<Boolean> extend(StepClaim claim);

	/**
	 * Removes a step's in-progress claim, whoever holds it.
	 * @param operation the operation id
	 * @param step the step
	 * @return completes once removed
	 */
	Mono<Void> abandon(String operation, String step);

	/**
	 * Removes a claim if it still holds the step.
	 * @param claim the claim
	 * @return completes once removed (or found gone)
	 */
	Mono<Void> abandon(StepClaim claim);

	/**
	 * The steps of an operation that are done.
	 * @param operation the operation id
	 * @return the done steps, empty when none
	 */
	Mono<Set<String>> recordedSteps(String operation);

	/**
	 * A done step's result.
	 * @param <T> the result type
	 * @param operation the operation id
	 * @param step the step
	 * @param type the result type
	 * @return the result, empty when the step is not done (or returned null)
	 */
	<T> Mono<T> result(String operation, String step, Class<T> type);

}
