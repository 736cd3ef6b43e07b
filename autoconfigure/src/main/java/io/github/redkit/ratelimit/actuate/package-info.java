/**
 * What rate limits show on the {@code redkit} actuator endpoint.
 */
@NullMarked
package io.github.redkit.ratelimit.actuate;

import org.jspecify.annotations.NullMarked;
