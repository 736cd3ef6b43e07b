/**
 * Spring Integration support: a {@code LockRegistry} backed by Redkit's distributed
 * locks.
 */
@NullMarked
package io.github.redkit.integration;

import org.jspecify.annotations.NullMarked;
