/**
 * What queues show on the {@code redkit} actuator endpoint.
 */
@NullMarked
package io.github.redkit.queue.actuate;

import org.jspecify.annotations.NullMarked;
