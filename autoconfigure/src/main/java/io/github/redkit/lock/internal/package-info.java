/**
 * Implementation of {@link io.github.redkit.lock}: public only for Redkit's own wiring,
 * not an API.
 */
@NullMarked
package io.github.redkit.lock.internal;

import org.jspecify.annotations.NullMarked;
