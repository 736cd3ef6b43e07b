/**
 * Implementation of {@link io.github.redkit.pubsub}: public only for Redkit's own wiring,
 * not an API.
 */
@NullMarked
package io.github.redkit.pubsub.internal;

import org.jspecify.annotations.NullMarked;
