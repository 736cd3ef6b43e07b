/**
 * The server doctor's implementation: reading the server's settings and judging them.
 */
@NullMarked
package io.github.redkit.doctor.internal;

import org.jspecify.annotations.NullMarked;
