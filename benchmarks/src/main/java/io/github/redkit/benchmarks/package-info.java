/**
 * Side-by-side benchmarks of Redkit, the peer libraries and raw Spring Data Redis.
 */
@NullMarked
package io.github.redkit.benchmarks;

import org.jspecify.annotations.NullMarked;
