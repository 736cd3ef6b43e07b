package io.github.redkit.core.internal;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * One key's local allowance: the batch this instance took from Redis and hands out
 * itself, and the batch being taken for it, so that the calls of one key take one batch
 * at a time. Each call asks {@link #next} what to do: be served from the batch, wait for
 * the batch being taken, take one, or go to Redis itself (after Redis refused a batch).
 * What a batch is and how it is handed out is the capability's.
 *
 * @param <B> the batch
 */
public final class LocalBatchSlot<B> {

	private @Nullable B batch;

	private @Nullable CompletableFuture<Void> taking;

	// after a refused batch, calls go to Redis one by one until directUntil
	private boolean refused;

	private long directUntil;

	/**
	 * Decides what a call does, under the slot's lock.
	 * @param <R> what a call served from the batch gets
	 * @param now the call's time (monotonic nanoseconds)
	 * @param hand hands the call its share of the batch, or {@code null} when the batch
	 * cannot serve it (used up or ended): it is then retired
	 * @return the step
	 */
	public synchronized <R> Step<B, R> next(long now, Function<B, @Nullable R> hand) {
		B retired = null;
		B current = this.batch;
		if (current != null) {
			R served = hand.apply(current);
			if (served != null) {
				return new Step<>(served, null, null, null, false);
			}
			retired = current;
			this.batch = null;
		}
		if (this.refused && now - this.directUntil < 0) {
			return new Step<>(null, retired, null, null, true);
		}
		if (this.taking != null) {
			return new Step<>(null, retired, this.taking, null, false);
		}
		CompletableFuture<Void> taking = new CompletableFuture<>();
		this.taking = taking;
		return new Step<>(null, retired, null, taking, false);
	}

	/**
	 * A batch was taken: it serves the calls from now on.
	 * @param batch the batch
	 * @return the batch it replaced, to be given back, or {@code null}
	 */
	public synchronized @Nullable B taken(B batch) {
		B replaced = this.batch;
		this.batch = batch;
		return replaced;
	}

	/**
	 * Redis refused a batch: calls go to Redis one by one until then.
	 * @param until monotonic nanoseconds
	 */
	public synchronized void refusedUntil(long until) {
		this.refused = true;
		this.directUntil = until;
	}

	/**
	 * The batch being taken was taken, or could not be: the calls that waited for it ask
	 * again.
	 * @param taking what {@link Step#taking()} gave the call that took it
	 */
	public void doneTaking(CompletableFuture<Void> taking) {
		synchronized (this) {
			this.taking = null;
		}
		taking.complete(null);
	}

	/**
	 * Takes the batch out of the slot, to be given back.
	 * @param live whether the batch may still be handed out, or {@code null} to take it
	 * whatever it is
	 * @return the batch, or {@code null} when there is none, one is being taken, or it is
	 * still live
	 */
	public synchronized @Nullable B release(@Nullable Function<B, Boolean> live) {
		B current = this.batch;
		if (live != null && (this.taking != null || (current != null && live.apply(current)))) {
			return null;
		}
		this.batch = null;
		return current;
	}

	/**
	 * Whether the slot holds nothing and takes nothing.
	 * @return {@code true} when it may be forgotten
	 */
	public synchronized boolean empty() {
		return this.batch == null && this.taking == null;
	}

	/**
	 * What a call does.
	 *
	 * @param <B> the batch
	 * @param <R> what a served call gets
	 * @param served what the call got from the batch, or {@code null}
	 * @param retired a batch the call found used up or ended, to be given back
	 * @param waitFor the batch being taken, to ask again when it is
	 * @param taking the call takes a batch, and completes this through
	 * {@link LocalBatchSlot#doneTaking} when it has
	 * @param direct the call goes to Redis itself
	 */
	public record Step<B, R>(@Nullable R served, @Nullable B retired, @Nullable CompletableFuture<Void> waitFor,
			@Nullable CompletableFuture<Void> taking, boolean direct) {
	}

}
