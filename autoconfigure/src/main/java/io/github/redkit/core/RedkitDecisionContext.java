package io.github.redkit.core;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The context of an observed decision that involves no message: rate and concurrency
 * limits, locks, steps, budgets, publishing.
 */
public class RedkitDecisionContext extends Observation.Context implements RedkitObservationContext {

	private final RedkitObservationKind kind;

	private final String name;

	private volatile @Nullable String outcome;

	/**
	 * Creates a context.
	 * @param kind what is decided
	 * @param name the limit, lock, step or channel name
	 */
	public RedkitDecisionContext(RedkitObservationKind kind, String name) {
		this.kind = kind;
		this.name = name;
	}

	@Override
	public RedkitObservationKind getObservationKind() {
		return this.kind;
	}

	@Override
	public String getObservedName() {
		return this.name;
	}

	@Override
	public @Nullable String getOutcome() {
		return this.outcome;
	}

	@Override
	public void setOutcome(@Nullable String outcome) {
		this.outcome = outcome;
	}

}
