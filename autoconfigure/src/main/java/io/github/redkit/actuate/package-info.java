/**
 * The {@code redkit} actuator endpoint: what Redkit keeps in Redis, for operators.
 */
@NullMarked
package io.github.redkit.actuate;

import org.jspecify.annotations.NullMarked;
