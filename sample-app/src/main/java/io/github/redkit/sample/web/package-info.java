/**
 * Web plumbing of the sample: validation, errors and the admin guard.
 */
@NullMarked
package io.github.redkit.sample.web;

import org.jspecify.annotations.NullMarked;
