package io.github.redkit.upgrade;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.StepOutcome;

/**
 * Steps claimed by both versions and given up ({@code abandon(operation, step)},
 * {@code idempotency_abandon} changed since 0.1.0) more often than completed, so that a
 * step one version abandoned is claimed again by the other.
 */
final class AbandonLoad {

	private final IdempotentSteps steps;

	private final HistoryLog history;

	AbandonLoad(IdempotentSteps steps, HistoryLog history) {
		this.steps = steps;
		this.history = history;
	}

	void step() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		// a fresh pair of operations every 300 ms (both JVMs read the same clock), each
		// contested by every instance
		String operation = "retry-" + (System.currentTimeMillis() / 300) + "-" + random.nextInt(2);
		String key = operation + "/try";
		StepOutcome outcome = this.history.call("step-abandon", "claim", key,
				() -> this.steps.claim(operation, "try", null, Duration.ofMinutes(10)), (claimed, fields) -> {
					fields.put("outcome", "ok");
					fields.put("claim", claimed.name());
				});
		if (outcome != StepOutcome.CLAIMED) {
			return;
		}
		if (random.nextInt(5) < 3) {
			this.history.call("step-abandon", "abandon", key, () -> {
				this.steps.abandon(operation, "try");
				return true;
			}, (done, fields) -> fields.put("outcome", "ok"));
		}
		else {
			this.history.call("step-abandon", "complete", key, () -> {
				this.steps.complete(operation, "try", "done");
				return true;
			}, (done, fields) -> fields.put("outcome", "ok"));
		}
	}

}
