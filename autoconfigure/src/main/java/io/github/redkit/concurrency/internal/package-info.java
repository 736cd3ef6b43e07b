/**
 * Implementation of {@link io.github.redkit.concurrency}: public only for Redkit's own
 * wiring, not an API.
 */
@NullMarked
package io.github.redkit.concurrency.internal;

import org.jspecify.annotations.NullMarked;
