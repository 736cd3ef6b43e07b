/**
 * Distributed locks with fencing tokens: {@code @DistributedLock} and the
 * {@code DistributedLocks} bean.
 */
@NullMarked
package io.github.redkit.lock;

import org.jspecify.annotations.NullMarked;
