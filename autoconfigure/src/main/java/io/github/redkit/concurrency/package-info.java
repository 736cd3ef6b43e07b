/**
 * Concurrency limits across instances: {@code @ConcurrencyLimited}, the
 * {@code ConcurrencyLimiter} bean and the leased permits behind them.
 */
@NullMarked
package io.github.redkit.concurrency;

import org.jspecify.annotations.NullMarked;
