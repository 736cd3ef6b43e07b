/**
 * Auto-configuration of concurrency limits.
 */
@NullMarked
package io.github.redkit.autoconfigure.concurrency;

import org.jspecify.annotations.NullMarked;
