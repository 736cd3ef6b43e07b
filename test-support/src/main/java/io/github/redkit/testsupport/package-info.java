/**
 * Real Redis servers for tests (standalone, cluster, Sentinel) and tools to count their
 * commands.
 */
@NullMarked
package io.github.redkit.testsupport;

import org.jspecify.annotations.NullMarked;
