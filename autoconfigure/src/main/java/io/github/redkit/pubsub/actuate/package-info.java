/**
 * What control state shows on the {@code redkit} actuator endpoint.
 */
@NullMarked
package io.github.redkit.pubsub.actuate;

import org.jspecify.annotations.NullMarked;
