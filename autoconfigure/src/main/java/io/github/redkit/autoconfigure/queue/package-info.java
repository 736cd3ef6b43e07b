/**
 * Auto-configuration of queues and their listener containers.
 */
@NullMarked
package io.github.redkit.autoconfigure.queue;

import org.jspecify.annotations.NullMarked;
