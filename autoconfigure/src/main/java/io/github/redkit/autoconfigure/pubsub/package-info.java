/**
 * Auto-configuration of pub/sub and durable control state.
 */
@NullMarked
package io.github.redkit.autoconfigure.pubsub;

import org.jspecify.annotations.NullMarked;
