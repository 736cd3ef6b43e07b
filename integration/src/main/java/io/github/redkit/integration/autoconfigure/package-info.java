/**
 * Auto-configuration of Redkit's Spring Integration support.
 */
@NullMarked
package io.github.redkit.integration.autoconfigure;

import org.jspecify.annotations.NullMarked;
