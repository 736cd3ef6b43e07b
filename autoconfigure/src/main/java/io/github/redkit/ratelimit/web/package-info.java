/**
 * Spring MVC answers for rate limits: {@code 429} with the IETF {@code RateLimit} fields.
 */
@NullMarked
package io.github.redkit.ratelimit.web;

import org.jspecify.annotations.NullMarked;
