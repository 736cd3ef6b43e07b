/**
 * What budgets show on the {@code redkit} actuator endpoint.
 */
@NullMarked
package io.github.redkit.budget.actuate;

import org.jspecify.annotations.NullMarked;
