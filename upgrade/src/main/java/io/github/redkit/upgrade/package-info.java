/**
 * The workload of the mixed-version test: a Spring Boot application, compiled against the
 * API every tested version shares, that drives every capability and writes what it asked
 * and what it was answered.
 */
@NullMarked
package io.github.redkit.upgrade;

import org.jspecify.annotations.NullMarked;
