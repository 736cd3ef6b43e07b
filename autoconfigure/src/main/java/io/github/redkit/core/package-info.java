/**
 * What every capability builds on: keys, Lua scripts and their runner, SpEL keys,
 * advisors and metrics.
 */
@NullMarked
package io.github.redkit.core;

import org.jspecify.annotations.NullMarked;
