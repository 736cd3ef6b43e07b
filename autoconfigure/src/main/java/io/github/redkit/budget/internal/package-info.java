/**
 * Implementation of {@link io.github.redkit.budget}: public only for Redkit's own wiring,
 * not an API.
 */
@NullMarked
package io.github.redkit.budget.internal;

import org.jspecify.annotations.NullMarked;
