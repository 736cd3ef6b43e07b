/**
 * Web answers for rate limits (Spring MVC and WebFlux): {@code 429} with the IETF
 * {@code RateLimit} fields, and route limits for WebFlux without annotations.
 */
@NullMarked
package io.github.redkit.ratelimit.web;

import org.jspecify.annotations.NullMarked;
