/**
 * Budgets in integer minor units, spent, refunded and reserved atomically.
 */
@NullMarked
package io.github.redkit.budget;

import org.jspecify.annotations.NullMarked;
