/**
 * Auto-configuration of the server doctor.
 */
@NullMarked
package io.github.redkit.autoconfigure.doctor;

import org.jspecify.annotations.NullMarked;
