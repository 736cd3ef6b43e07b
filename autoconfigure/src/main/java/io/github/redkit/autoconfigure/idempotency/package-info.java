/**
 * Auto-configuration of idempotent steps.
 */
@NullMarked
package io.github.redkit.autoconfigure.idempotency;

import org.jspecify.annotations.NullMarked;
