/**
 * Implementation of {@link io.github.redkit.region}: public only for Redkit's own wiring,
 * not an API.
 */
@NullMarked
package io.github.redkit.region.internal;

import org.jspecify.annotations.NullMarked;
