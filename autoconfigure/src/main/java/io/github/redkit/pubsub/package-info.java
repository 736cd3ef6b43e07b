/**
 * Pub/sub: JSON publishing and control state that survives missed messages.
 */
@NullMarked
package io.github.redkit.pubsub;

import org.jspecify.annotations.NullMarked;
