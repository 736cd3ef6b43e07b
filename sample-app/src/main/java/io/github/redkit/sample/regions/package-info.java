/**
 * The sample as one of several regions: endpoints of the {@code regions} profile.
 */
@NullMarked
package io.github.redkit.sample.regions;

import org.jspecify.annotations.NullMarked;
