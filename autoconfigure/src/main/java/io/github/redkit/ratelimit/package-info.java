/**
 * Rate limits: {@code @RateLimited}, the {@code RateLimiter} bean and the Redis scripts
 * behind them.
 */
@NullMarked
package io.github.redkit.ratelimit;

import org.jspecify.annotations.NullMarked;
