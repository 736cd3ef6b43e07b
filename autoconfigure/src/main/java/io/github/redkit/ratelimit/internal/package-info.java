/**
 * Implementation of {@link io.github.redkit.ratelimit}: public only for Redkit's own
 * wiring, not an API.
 */
@NullMarked
package io.github.redkit.ratelimit.internal;

import org.jspecify.annotations.NullMarked;
