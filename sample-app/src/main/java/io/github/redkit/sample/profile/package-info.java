/**
 * Profiles and last-seen times, cached and collapsed.
 */
@NullMarked
package io.github.redkit.sample.profile;

import org.jspecify.annotations.NullMarked;
