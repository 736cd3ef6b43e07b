/**
 * Implementation of {@link io.github.redkit.cache}: public only for Redkit's own wiring,
 * not an API.
 */
@NullMarked
package io.github.redkit.cache.internal;

import org.jspecify.annotations.NullMarked;
