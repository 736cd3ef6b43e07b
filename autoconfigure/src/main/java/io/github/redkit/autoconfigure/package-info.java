/**
 * Auto-configuration of Redkit's core: the keyspace, the script runner, the key evaluator
 * and the metrics seam.
 */
@NullMarked
package io.github.redkit.autoconfigure;

import org.jspecify.annotations.NullMarked;
