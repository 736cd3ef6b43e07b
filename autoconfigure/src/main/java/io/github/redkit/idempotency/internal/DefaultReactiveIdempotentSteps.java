package io.github.redkit.idempotency.internal;

import java.time.Duration;
import java.util.Set;

import io.github.redkit.core.internal.ReactiveAcquire;
import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.ReactiveIdempotentSteps;
import io.github.redkit.idempotency.StepClaim;
import io.github.redkit.idempotency.StepOutcome;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The {@link ReactiveIdempotentSteps} on an {@link IdempotentSteps}' asynchronous
 * operations, so that both faces share one implementation: the same scripts, keys, meters
 * and observations.
 */
public class DefaultReactiveIdempotentSteps implements ReactiveIdempotentSteps {

	private final IdempotentSteps steps;

	/**
	 * Creates the reactive face of idempotent steps.
	 * @param steps the steps
	 */
	public DefaultReactiveIdempotentSteps(IdempotentSteps steps) {
		this.steps = steps;
	}

	@Override
	public Mono<StepOutcome> claim(String operation, String step, @Nullable Set<String> after, @Nullable Duration ttl) {
		return claim(operation, step, after, ttl, null, null).map(StepClaim::outcome);
	}

	@Override
	public Mono<StepClaim> claim(String operation, String step, @Nullable Set<String> after, @Nullable Duration ttl,
			@Nullable Duration lease, @Nullable String fingerprint) {
		// a claim taken for a subscriber that cancelled is abandoned: nobody could run it
		return ReactiveAcquire.of(() -> this.steps.claimAsync(operation, step, after, ttl, lease, fingerprint),
				(claim) -> {
					if (claim.outcome() == StepOutcome.CLAIMED) {
						this.steps.abandonAsync(claim);
					}
				});
	}

	@Override
	public Mono<Void> complete(String operation, String step, @Nullable Object result) {
		return Mono.fromFuture(() -> this.steps.completeAsync(operation, step, result));
	}

	@Override
	public Mono<Void> complete(StepClaim claim, @Nullable Object result) {
		return Mono.fromFuture(() -> this.steps.completeAsync(claim, result));
	}

	@Override
	public Mono<Boolean> extend(StepClaim claim) {
		return Mono.fromFuture(() -> this.steps.extendAsync(claim));
	}

	@Override
	public Mono<Void> abandon(String operation, String step) {
		return Mono.fromFuture(() -> this.steps.abandonAsync(operation, step));
	}

	@Override
	public Mono<Void> abandon(StepClaim claim) {
		return Mono.fromFuture(() -> this.steps.abandonAsync(claim));
	}

	@Override
	public Mono<Set<String>> recordedSteps(String operation) {
		return Mono.fromFuture(() -> this.steps.recordedStepsAsync(operation));
	}

	@Override
	public <T> Mono<T> result(String operation, String step, Class<T> type) {
		return Mono.fromFuture(() -> this.steps.resultAsync(operation, step, type));
	}

}
