/**
 * Ad campaigns: budgets, auctions as idempotent steps and settlement under a lock.
 */
@NullMarked
package io.github.redkit.sample.ads;

import org.jspecify.annotations.NullMarked;
