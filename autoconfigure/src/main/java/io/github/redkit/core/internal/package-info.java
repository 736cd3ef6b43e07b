/**
 * Implementation of {@code io.github.redkit.core}: public for Redkit's own packages and
 * wiring only, not an API; it may change in any release.
 */
@NullMarked
package io.github.redkit.core.internal;

import org.jspecify.annotations.NullMarked;
