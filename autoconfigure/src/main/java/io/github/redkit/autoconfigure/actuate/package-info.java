/**
 * Auto-configuration of the {@code redkit} actuator endpoint.
 */
@NullMarked
package io.github.redkit.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
