/**
 * Auto-configuration of several regions.
 */
@NullMarked
package io.github.redkit.autoconfigure.region;

import org.jspecify.annotations.NullMarked;
