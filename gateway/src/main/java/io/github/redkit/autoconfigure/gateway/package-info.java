/**
 * Auto-configuration of Redkit's Spring Cloud Gateway {@code RateLimiter}.
 */
@NullMarked
package io.github.redkit.autoconfigure.gateway;

import org.jspecify.annotations.NullMarked;
