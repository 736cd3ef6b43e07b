/**
 * A ShedLock {@code LockProvider} backed by Redkit's distributed locks.
 */
@NullMarked
package io.github.redkit.shedlock;

import org.jspecify.annotations.NullMarked;
