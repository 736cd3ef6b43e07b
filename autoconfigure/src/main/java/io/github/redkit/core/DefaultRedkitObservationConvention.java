package io.github.redkit.core;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;

/**
 * The default name and key values of one kind of Redkit observation: the kind's
 * observation name, its name key ({@code redkit.limit}, {@code redkit.queue}...) and
 * {@code redkit.outcome}. All are low-cardinality; a key or a payload is never a key
 * value.
 */
public class DefaultRedkitObservationConvention implements RedkitObservationConvention {

	/** Key of the outcome, {@code none} until one is set. */
	public static final String OUTCOME = "redkit.outcome";

	private final RedkitObservationKind kind;

	/**
	 * Creates the convention of one kind of observation.
	 * @param kind the kind
	 */
	public DefaultRedkitObservationConvention(RedkitObservationKind kind) {
		this.kind = kind;
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof RedkitObservationContext redkit && this.kind.equals(redkit.getObservationKind());
	}

	@Override
	public String getName() {
		return this.kind.observationName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(Observation.Context context) {
		RedkitObservationContext redkit = (RedkitObservationContext) context;
		String outcome = redkit.getOutcome();
		return KeyValues.of(KeyValue.of(redkit.getObservationKind().nameKey(), redkit.getObservedName()),
				KeyValue.of(OUTCOME, (outcome != null) ? outcome : "none"));
	}

	@Override
	public String getContextualName(Observation.Context context) {
		return this.kind.observationName() + " " + ((RedkitObservationContext) context).getObservedName();
	}

}
