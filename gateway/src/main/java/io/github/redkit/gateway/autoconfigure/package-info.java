/**
 * Auto-configuration of Redkit's Spring Cloud Gateway {@code RateLimiter} (WebFlux) and
 * {@code RedkitRateLimit} filter (Server MVC).
 */
@NullMarked
package io.github.redkit.gateway.autoconfigure;

import org.jspecify.annotations.NullMarked;
