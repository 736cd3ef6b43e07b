/**
 * Control state shared by every instance of the sample.
 */
@NullMarked
package io.github.redkit.sample.control;

import org.jspecify.annotations.NullMarked;
