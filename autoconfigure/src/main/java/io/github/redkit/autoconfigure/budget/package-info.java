/**
 * Auto-configuration of budgets.
 */
@NullMarked
package io.github.redkit.autoconfigure.budget;

import org.jspecify.annotations.NullMarked;
