/**
 * Auto-configuration of Redkit's Resilience4j support.
 */
@NullMarked
package io.github.redkit.resilience4j.autoconfigure;

import org.jspecify.annotations.NullMarked;
