/**
 * Auto-configuration of rate limits.
 */
@NullMarked
package io.github.redkit.autoconfigure.ratelimit;

import org.jspecify.annotations.NullMarked;
