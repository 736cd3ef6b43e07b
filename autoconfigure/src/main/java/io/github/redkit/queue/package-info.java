/**
 * Reliable queues: {@code QueueTemplate}, {@code @QueueListener}, delayed and collapsing
 * queues.
 */
@NullMarked
package io.github.redkit.queue;

import org.jspecify.annotations.NullMarked;
