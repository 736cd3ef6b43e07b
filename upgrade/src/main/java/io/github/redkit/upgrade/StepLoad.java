package io.github.redkit.upgrade;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import io.github.redkit.idempotency.IdempotentSteps;
import io.github.redkit.idempotency.StepOutcome;

/**
 * Two steps of operations every instance shares ({@code reserve}, then {@code charge}
 * after it): each claim written with its outcome, each completion with its times.
 */
final class StepLoad {

	private static final int OPERATIONS = 3_000;

	private final IdempotentSteps steps;

	private final HistoryLog history;

	StepLoad(IdempotentSteps steps, HistoryLog history) {
		this.steps = steps;
		this.history = history;
	}

	void step() {
		String operation = "order-" + ThreadLocalRandom.current().nextInt(OPERATIONS);
		run(operation, "reserve", Set.of());
		run(operation, "charge", Set.of("reserve"));
	}

	private void run(String operation, String step, Set<String> after) {
		StepOutcome outcome = this.history.call("step", "claim", operation + "/" + step,
				() -> this.steps.claim(operation, step, after, Duration.ofMinutes(10)), (claimed, fields) -> {
					fields.put("outcome", "ok");
					fields.put("claim", claimed.name());
				});
		if (outcome == StepOutcome.CLAIMED) {
			this.history.call("step", "complete", operation + "/" + step, () -> {
				this.steps.complete(operation, step, step + " of " + operation);
				return true;
			}, (done, fields) -> fields.put("outcome", "ok"));
		}
	}

}
