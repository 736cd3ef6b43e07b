/**
 * What the server doctor shows in health and on the {@code redkit} actuator endpoint.
 */
@NullMarked
package io.github.redkit.doctor.actuate;

import org.jspecify.annotations.NullMarked;
