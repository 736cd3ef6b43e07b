/**
 * The sample application: a Retwis-style social app with ad campaigns that uses every
 * Redkit capability.
 */
@NullMarked
package io.github.redkit.sample;

import org.jspecify.annotations.NullMarked;
