/**
 * Several regions, each on its own Redis, replaying each other's changes: counters that
 * converge across regions.
 */
@NullMarked
package io.github.redkit.region;

import org.jspecify.annotations.NullMarked;
