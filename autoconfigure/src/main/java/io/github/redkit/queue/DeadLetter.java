package io.github.redkit.queue;

import java.time.Instant;

/**
 * A message that failed {@code max-attempts} times, kept with its last error.
 *
 * @param id the message id
 * @param payloadJson the payload as JSON
 * @param deliveries how many times it was delivered
 * @param error the last error (exception type and message)
 * @param deadAt when it was dead-lettered (Redis time)
 */
public record DeadLetter(String id, String payloadJson, int deliveries, String error, Instant deadAt) {

}
