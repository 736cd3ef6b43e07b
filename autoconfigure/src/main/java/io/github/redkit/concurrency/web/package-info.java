/**
 * Spring MVC answers for concurrency limits: {@code 429} with the IETF {@code RateLimit}
 * fields of a {@code concurrent-requests} quota.
 */
@NullMarked
package io.github.redkit.concurrency.web;

import org.jspecify.annotations.NullMarked;
