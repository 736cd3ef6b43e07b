/**
 * Auto-configuration of Redkit's ShedLock {@code LockProvider}.
 */
@NullMarked
package io.github.redkit.autoconfigure.shedlock;

import org.jspecify.annotations.NullMarked;
