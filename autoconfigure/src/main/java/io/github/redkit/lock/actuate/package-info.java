/**
 * What locks show on the {@code redkit} actuator endpoint.
 */
@NullMarked
package io.github.redkit.lock.actuate;

import org.jspecify.annotations.NullMarked;
