/**
 * Auto-configuration of distributed locks.
 */
@NullMarked
package io.github.redkit.autoconfigure.lock;

import org.jspecify.annotations.NullMarked;
