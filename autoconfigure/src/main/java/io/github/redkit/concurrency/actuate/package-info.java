/**
 * What concurrency limits show on the {@code redkit} actuator endpoint.
 */
@NullMarked
package io.github.redkit.concurrency.actuate;

import org.jspecify.annotations.NullMarked;
