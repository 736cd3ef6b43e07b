package io.github.redkit.concurrency;

import java.util.concurrent.CompletableFuture;

/**
 * A permit of a concurrency limit, to close when the call it guards has run: closing
 * gives it back in one round trip, once however often it is called. While it is held its
 * lease is renewed, so a long call keeps its place; if its process dies, the lease ends
 * and the place comes back.
 */
public interface ConcurrencyPermit extends AutoCloseable {

	/**
	 * The limit this permit belongs to.
	 * @return the limit name
	 */
	String limitName();

	/**
	 * Whether a place was taken in Redis. {@code false} only for a permit handed out
	 * without asking Redis because it could not be reached and the failure mode is
	 * {@code allow}: the call runs, uncounted.
	 * @return whether the permit holds a place
	 */
	boolean acquired();

	/**
	 * Calls in flight for the key when the permit was taken, this one included.
	 * @return the count, or {@code -1} when the permit was not acquired
	 */
	long inFlight();

	/**
	 * Places left for the key when the permit was taken.
	 * @return the count, or {@code -1} when the permit was not acquired
	 */
	long remaining();

	/**
	 * Whether the permit still holds its place: acquired, not closed, and its lease not
	 * lost (renewals that found it gone, or could not reach Redis before it ran out).
	 * @return whether it is held
	 */
	boolean isHeld();

	/**
	 * Gives the place back; later calls do nothing. Never throws: when Redis cannot be
	 * reached the place comes back when its lease ends.
	 */
	@Override
	void close();

	/**
	 * Gives the permit back without blocking the calling thread. The default closes it on
	 * the common pool; Redkit's permits send the release without a thread waiting.
	 * @return completes when the permit is given back (or giving it back failed, which is
	 * logged: the permit then comes back when its lease ends)
	 */
	default CompletableFuture<Void> closeAsync() {
		return CompletableFuture.runAsync(this::close);
	}

}
