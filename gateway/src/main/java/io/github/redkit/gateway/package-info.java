/**
 * A Spring Cloud Gateway {@code RateLimiter} backed by Redkit's rate limits.
 */
@NullMarked
package io.github.redkit.gateway;

import org.jspecify.annotations.NullMarked;
