/**
 * Counters, time series and unique counts of the sample.
 */
@NullMarked
package io.github.redkit.sample.analytics;

import org.jspecify.annotations.NullMarked;
