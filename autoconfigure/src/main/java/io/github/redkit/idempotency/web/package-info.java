/**
 * Spring MVC answers for idempotent steps.
 */
@NullMarked
package io.github.redkit.idempotency.web;

import org.jspecify.annotations.NullMarked;
