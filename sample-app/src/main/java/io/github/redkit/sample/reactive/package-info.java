/**
 * The sample on WebFlux: endpoints of the {@code reactive} profile.
 */
@NullMarked
package io.github.redkit.sample.reactive;

import org.jspecify.annotations.NullMarked;
