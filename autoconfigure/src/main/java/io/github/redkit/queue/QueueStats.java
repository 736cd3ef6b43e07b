package io.github.redkit.queue;

import java.time.Duration;

/**
 * A snapshot of one queue.
 *
 * @param ready messages waiting to be taken
 * @param delayed messages waiting for their due time (delayed sends and retries)
 * @param inFlight messages taken and not yet settled
 * @param deadLetters messages in the dead-letter queue
 * @param oldestAge age of the oldest ready message (zero when there is none)
 */
public record QueueStats(long ready, long delayed, long inFlight, long deadLetters, Duration oldestAge) {

}
