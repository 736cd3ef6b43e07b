/**
 * Auto-configuration of Redkit's Spring Integration support.
 */
@NullMarked
package io.github.redkit.autoconfigure.integration;

import org.jspecify.annotations.NullMarked;
