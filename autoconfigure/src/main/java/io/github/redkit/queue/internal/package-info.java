/**
 * Implementation of {@link io.github.redkit.queue}: public only for Redkit's own wiring,
 * not an API.
 */
@NullMarked
package io.github.redkit.queue.internal;

import org.jspecify.annotations.NullMarked;
