/**
 * Implementation of {@link io.github.redkit.idempotency}: public only for Redkit's own
 * wiring, not an API.
 */
@NullMarked
package io.github.redkit.idempotency.internal;

import org.jspecify.annotations.NullMarked;
