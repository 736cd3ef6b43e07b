/**
 * Spring MVC answers for lock failures.
 */
@NullMarked
package io.github.redkit.lock.web;

import org.jspecify.annotations.NullMarked;
