/**
 * What several regions show on the {@code redkit} actuator endpoint.
 */
@NullMarked
package io.github.redkit.region.actuate;

import org.jspecify.annotations.NullMarked;
