package io.github.redkit.idempotency;

import java.time.Duration;
import java.util.Set;

/**
 * The full answer to a claim: the outcome, what was recorded when it was decided, and
 * what {@link IdempotentSteps#complete(StepClaim, Object)} needs.
 *
 * @param operation the operation
 * @param step the step
 * @param outcome the decision
 * @param token identifies this claim (meaningful when {@link StepOutcome#CLAIMED})
 * @param ttl how long the operation's record is kept
 * @param lease how long the claim holds the step unless renewed
 * @param fingerprint the request fingerprint, empty for none
 * @param storedResult the first run's result as JSON when {@link StepOutcome#DUPLICATE},
 * otherwise {@code null}
 * @param doneSteps the other steps done when the claim was decided
 * @param inProgressSteps the other steps running when the claim was decided
 */
public record StepClaim(String operation, String step, StepOutcome outcome, String token, Duration ttl, Duration lease,
		String fingerprint, String storedResult, Set<String> doneSteps, Set<String> inProgressSteps) {

}
