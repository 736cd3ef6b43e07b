/**
 * Resilience4j's {@code RateLimiter} and {@code Bulkhead} backed by Redkit's distributed
 * rate and concurrency limits.
 */
@NullMarked
package io.github.redkit.resilience4j;

import org.jspecify.annotations.NullMarked;
