package io.github.redkit.concurrency.internal;

/**
 * What Redis granted to one {@link RedisConcurrencyPermit}: the limit, the set the permit
 * is in, its random id, and the count of permits in flight and left at that moment.
 *
 * @param limitName the limit's name
 * @param redisKey the key of the limit's set of permits
 * @param id the permit's random id in that set
 * @param inFlight the permits held when this one was granted, itself included
 * @param remaining the permits left when this one was granted
 */
record PermitGrant(String limitName, String redisKey, String id, long inFlight, long remaining) {

}
