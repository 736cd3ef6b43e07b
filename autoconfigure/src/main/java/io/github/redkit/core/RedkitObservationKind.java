package io.github.redkit.core;

/**
 * A kind of observation that Redkit makes: its name and the low-cardinality key whose
 * value names the limit, lock, queue or step it concerns. Each capability declares its
 * own kinds as constants, as it declares its {@link RedkitMeter meters}. Observation
 * names differ from the names of Redkit's meters, so that an observation handler that
 * makes meters never counts an event twice under one name.
 *
 * @param observationName the observation's name, under {@code redkit.}
 * @param nameKey the low-cardinality key whose value names the limit, lock, queue or step
 */
public record RedkitObservationKind(String observationName, String nameKey) {

}
