/**
 * Redkit's rate limits on Spring Cloud Gateway Server MVC routes: a
 * {@code HandlerFilterFunction} and its {@code RedkitRateLimit} configuration shortcut.
 */
@NullMarked
package io.github.redkit.gateway.mvc;

import org.jspecify.annotations.NullMarked;
