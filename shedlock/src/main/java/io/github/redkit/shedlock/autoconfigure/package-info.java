/**
 * Auto-configuration of Redkit's ShedLock {@code LockProvider}.
 */
@NullMarked
package io.github.redkit.shedlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
