package io.github.redkit.cache;

import java.time.Duration;

/**
 * What Redkit sets on one cache of Spring's cache manager.
 *
 * @param ttl the longest time to live of an entry (jitter cuts up to a share of it)
 * @param cacheNulls whether null results are cached
 * @param policy single flight, early refresh and stale-on-error
 */
public record CacheSpec(Duration ttl, boolean cacheNulls, CachePolicy policy) {
}
