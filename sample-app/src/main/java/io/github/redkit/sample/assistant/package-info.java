/**
 * A writing assistant whose calls are charged the tokens they really used.
 */
@NullMarked
package io.github.redkit.sample.assistant;

import org.jspecify.annotations.NullMarked;
