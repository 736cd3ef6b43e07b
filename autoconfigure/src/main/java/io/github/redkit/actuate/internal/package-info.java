/**
 * Implementation of {@link io.github.redkit.actuate}: public only for Redkit's own
 * wiring, not an API.
 */
@NullMarked
package io.github.redkit.actuate.internal;

import org.jspecify.annotations.NullMarked;
