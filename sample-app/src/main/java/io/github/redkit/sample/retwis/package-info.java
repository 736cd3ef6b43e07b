/**
 * Retwis: users, follows, posts and timelines on Redis.
 */
@NullMarked
package io.github.redkit.sample.retwis;

import org.jspecify.annotations.NullMarked;
