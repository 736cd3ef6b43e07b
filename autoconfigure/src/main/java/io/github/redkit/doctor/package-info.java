/**
 * The server doctor: whether the Redis server's settings keep what the capabilities in
 * use need (no eviction, persistence, replicated writes), checked at start-up, in health
 * and on the {@code redkit} endpoint.
 */
@NullMarked
package io.github.redkit.doctor;

import org.jspecify.annotations.NullMarked;
