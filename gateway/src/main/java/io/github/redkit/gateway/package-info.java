/**
 * A Spring Cloud Gateway (WebFlux) {@code RateLimiter} backed by Redkit's rate limits;
 * the Server MVC filter is in {@code io.github.redkit.gateway.mvc}.
 */
@NullMarked
package io.github.redkit.gateway;

import org.jspecify.annotations.NullMarked;
