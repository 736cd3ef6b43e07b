/**
 * Web answers shared by every capability.
 */
@NullMarked
package io.github.redkit.core.web;

import org.jspecify.annotations.NullMarked;
