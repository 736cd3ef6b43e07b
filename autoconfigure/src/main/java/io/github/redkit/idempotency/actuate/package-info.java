/**
 * What idempotent steps show on the {@code redkit} actuator endpoint.
 */
@NullMarked
package io.github.redkit.idempotency.actuate;

import org.jspecify.annotations.NullMarked;
