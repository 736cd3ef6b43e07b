package io.github.redkit.core;

import org.jspecify.annotations.Nullable;

/**
 * What an {@link io.micrometer.observation.ObservationConvention} knows about one of
 * Redkit's observations, whichever context class carries it.
 */
public interface RedkitObservationContext {

	/**
	 * What is observed.
	 * @return the kind
	 */
	RedkitObservationKind getObservationKind();

	/**
	 * The limit, lock, queue, step or channel name.
	 * @return the name
	 */
	String getObservedName();

	/**
	 * How the decision went, once known.
	 * @return the outcome, or {@code null}
	 */
	@Nullable String getOutcome();

	/**
	 * Sets how the decision went.
	 * @param outcome the outcome
	 */
	void setOutcome(@Nullable String outcome);

}
