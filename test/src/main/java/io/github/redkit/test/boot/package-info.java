/**
 * Testing applications that use Redkit: {@link io.github.redkit.test.boot.RedkitTest}
 * gives a {@code @SpringBootTest} a real Redis and clean Redkit state,
 * {@link io.github.redkit.test.boot.RedkitTestRedis} makes that Redis hang, and
 * {@link io.github.redkit.test.boot.RedkitAssertions} checks rate limits, locks and
 * queues.
 */
@NullMarked
package io.github.redkit.test.boot;

import org.jspecify.annotations.NullMarked;
