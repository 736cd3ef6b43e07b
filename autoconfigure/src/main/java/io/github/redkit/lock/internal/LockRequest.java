package io.github.redkit.lock.internal;

import java.time.Duration;

/**
 * What one {@code tryLock} asks for: the lock's name and key, how long to wait for it,
 * the lease to hold it with, and whether that lease is the configured one the handle
 * renews by itself.
 *
 * @param name the lock's name
 * @param key the lock's key part
 * @param maxWait how long to wait for the lock
 * @param lease the lease to acquire it with
 * @param renewed whether no lease was given, so the handle renews the configured one
 */
record LockRequest(String name, String key, Duration maxWait, Duration lease, boolean renewed) {

}
