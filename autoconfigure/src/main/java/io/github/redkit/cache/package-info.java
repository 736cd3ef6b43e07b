/**
 * Redis caching done right: per-cache TTL with jitter, single flight, early refresh and
 * stale values on errors.
 */
@NullMarked
package io.github.redkit.cache;

import org.jspecify.annotations.NullMarked;
