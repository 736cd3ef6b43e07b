package io.github.redkit.core;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Name and key values of one kind of Redkit observation. Declare a bean of this type (or
 * of a capability's own convention type) to replace
 * {@link DefaultRedkitObservationConvention} for the contexts it supports; its
 * {@link #getName() name} should stay the kind's observation name.
 */
public interface RedkitObservationConvention extends ObservationConvention<Observation.Context> {

}
