package io.github.redkit.concurrency.internal;

import java.util.concurrent.CompletableFuture;

import io.github.redkit.concurrency.ConcurrencyPermit;

/**
 * The permit of a call let through without asking Redis (failure mode {@code allow}): it
 * holds no place, so closing it does nothing.
 *
 * @param limitName the limit
 */
record UnleasedPermit(String limitName) implements ConcurrencyPermit {

	@Override
	public boolean acquired() {
		return false;
	}

	@Override
	public long inFlight() {
		return -1;
	}

	@Override
	public long remaining() {
		return -1;
	}

	@Override
	public boolean isHeld() {
		return false;
	}

	@Override
	public void close() {
	}

	@Override
	public CompletableFuture<Void> closeAsync() {
		return CompletableFuture.completedFuture(null);
	}

}
