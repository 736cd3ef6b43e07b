/**
 * Idempotent, ordered steps: {@code @IdempotentStep} and the {@code IdempotentSteps}
 * bean.
 */
@NullMarked
package io.github.redkit.idempotency;

import org.jspecify.annotations.NullMarked;
